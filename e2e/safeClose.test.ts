// Closing a pane or switching its target while a program runs in it asks first; the idle shell closes at once.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openUi, pane, root, run, useServeAndBrowser, waitForPrompt, waitForStarted, waitForText } from './harness.js';

const app = useServeAndBrowser();
vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

describe('a running program', () => {
  it('makes close and switch-target ask; Cancel keeps it running, the idle shell closes without asking', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const panes = page.getByRole('tabpanel').getByRole('region', { name: /^Pane \d$/ });
    const p1 = pane(page, 1);
    await run(p1, 'sleep 600');
    await waitForStarted(p1, 'sleep 600');

    // An idle shell in a second pane closes at once.
    await page.keyboard.press('Control+Shift+D');
    await pane(page, 2).waitFor();
    await waitForPrompt(pane(page, 2));
    await poll(() => page.evaluate(() => document.activeElement?.closest('[aria-label="Pane 2"]') !== null)).toBe(true);
    await page.keyboard.press('Control+Shift+W');
    await poll(() => panes.count()).toBe(1);
    expect(await page.getByRole('dialog').count()).toBe(0);

    // The pane running sleep asks; Cancel has the focus; Escape keeps it.
    await p1.locator('.xterm').click();
    await page.keyboard.press('Control+Shift+W');
    const ask = page.getByRole('dialog', { name: 'Close pane?' });
    await ask.waitFor();
    expect(await ask.getByRole('list', { name: 'Running' }).textContent()).toContain('sleep 600');
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.screenshot({ path: join(root, 'test-results/e2e-close-asks.png') });
    await page.keyboard.press('Escape');
    await ask.waitFor({ state: 'detached' });
    expect(await panes.count()).toBe(1);

    // Switching its target asks too; Cancel leaves the picker and the shell as they were.
    const picker = p1.getByRole('combobox', { name: 'Target' });
    await picker.selectOption('beta');
    const sw = page.getByRole('dialog', { name: 'Switch target?' });
    await sw.waitFor();
    await sw.getByRole('button', { name: 'Cancel' }).click();
    await sw.waitFor({ state: 'detached' });
    await poll(() => picker.inputValue()).toBe('alpha');
    expect(await p1.locator('.dot--pane-open').count()).toBe(1);

    // Once the program ends the shell is idle again: switching goes ahead without asking.
    await p1.locator('.xterm').click();
    await page.keyboard.press('Control+C');
    await waitForPrompt(p1);
    await picker.selectOption('beta');
    await waitForText(p1, `${app.served.dirs.beta} $`);
    expect(await page.getByRole('dialog').count()).toBe(0);

    // Confirming ends it: the pane closes.
    await run(p1, 'sleep 601');
    await waitForStarted(p1, 'sleep 601');
    await page.keyboard.press('Control+Shift+W');
    await page.getByRole('dialog', { name: 'Close pane?' }).getByRole('button', { name: 'Close pane' }).click();
    await poll(() => panes.count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
