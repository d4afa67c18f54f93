// When the Core goes away, the window says so: the banner, and every pane's dot and chip (no green dot on a dead shell).
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openUi, pane, root, useServeAndBrowser } from './harness.js';

const app = useServeAndBrowser();

// Shells, CLI runs and Chromium share two cores with other work: wait for state generously (limits, not speed checks).
vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

describe('a lost Core connection', () => {
  it('turns the pane dots from live to disconnected', async () => {
    const { page } = await openUi(app.browser, app.served.url);
    await page.keyboard.press('Control+Shift+D');
    await pane(page, 2).waitFor();
    const live = page.locator('.pane .dot--pane-open');
    await poll(() => live.count()).toBe(2);
    await app.served.stop();
    await page.getByRole('alert').filter({ hasText: 'Lost the connection to the Core' }).waitFor();
    await poll(() => live.count()).toBe(0);
    for (const n of [1, 2]) expect(await pane(page, n).locator('.chip').textContent()).toBe('disconnected');
    await page.screenshot({ path: join(root, 'test-results/e2e-disconnected.png') });
    await page.close();
  });
});
