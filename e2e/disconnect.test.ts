// When the Core goes away, the window says so: the banner, every pane's dot and chip (no green dot on a dead shell),
// every target row. When a Core starts again on the profile, the open page finds it by itself: its panes come back in
// their directories below the output they showed.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { marker, openUi, pane, root, run, useServeAndBrowser, waitForText } from './harness.js';

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

describe('a Core started again on the profile', () => {
  const back = useServeAndBrowser();

  it(
    'finds a Core started again on the profile by itself: panes back in their cwd, scrollback kept, ' +
      "still the person's",
    async () => {
      const { page, errors } = await openUi(back.browser, back.served.url);
      const p1 = pane(page, 1);
      const before = marker('before');
      await run(p1, `cd sub && echo ${before}`);
      await waitForText(p1, new RegExp(`^${before}$`, 'm'));
      const sidebar = page.getByRole('list', { name: 'Targets' });
      await poll(() => sidebar.getByRole('listitem', { name: 'alpha' }).textContent()).toContain('reachable');
      const url = back.served.url;
      const again = await back.served.restart(async () => {
        await page.getByRole('alert').filter({ hasText: 'Lost the connection to the Core' }).waitFor();
        // Nothing the page last heard passes for now: no target reads as reachable.
        await poll(() => sidebar.getByRole('listitem', { name: 'alpha' }).textContent()).toContain('disconnected');
        expect(await sidebar.textContent()).not.toContain('reachable');
        expect(await page.getByLabel('Target health').textContent()).toMatch(/unknown while disconnected/);
        await page.screenshot({ path: join(root, 'test-results/e2e-disconnected-sidebar.png') });
      });
      // Same port and token: the page dials the same address.
      expect(again.split('?')[0]).toBe(url.split('?')[0]);
      await page
        .getByRole('alert')
        .filter({ hasText: 'Lost the connection to the Core' })
        .waitFor({ state: 'detached', timeout: 30_000 });
      await poll(() => sidebar.getByRole('listitem', { name: 'alpha' }).textContent()).toContain('reachable');
      await waitForText(p1, /a new shell in /, 20_000);
      // What the old shell printed is still on screen, and the new one is where the old one was.
      expect(await p1.textContent()).toContain(before);
      const after = marker('after');
      await run(p1, `echo ${after} "$(pwd)"`);
      await waitForText(p1, new RegExp(`^${after} ${back.served.dirs.alpha}/sub$`, 'm'));
      // Still the person's window: a pane opens (a person's method), no "not your window".
      await page.keyboard.press('Control+Shift+D');
      await pane(page, 2).waitFor();
      await poll(() => page.locator('.pane .dot--pane-open').count()).toBe(2);
      await page.screenshot({ path: join(root, 'test-results/e2e-reconnected.png') });
      // While the Core was down the page dialled its address again and again, and Chromium logs every refused dial (no
      // page can silence that). Those, to this Core's own address only, are the redialling this test asks for; any
      // other error (a CSP violation, an exception) still fails it.
      const refused = new RegExp(
        `^WebSocket connection to 'ws://${new URL(url).host.replace(/\./g, '\\.')}/(p/[\\w-]+/)?ws[^']*' failed: ` +
          'Error in connection establishment: net::ERR_CONNECTION_REFUSED$',
      );
      expect(errors.filter((e) => !refused.test(e))).toEqual([]);
      await page.close();
    },
  );
});
