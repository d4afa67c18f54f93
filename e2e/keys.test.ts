// Keys in a browser: the commands whose usual keys the browser keeps (Ctrl+T, Ctrl+W, Ctrl+Tab, Ctrl+1…9) have
// others it leaves to the page, shown first; Settings → Keys changes a command's key, kept in the profile.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openUi, pane, root, useServeAndBrowser, waitForPrompt } from './harness.js';

const app = useServeAndBrowser();
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

describe('keyboard shortcuts in a browser', () => {
  for (const viewport of [
    { width: 1400, height: 900 },
    { width: 900, height: 600 },
  ]) {
    it(
      `browser-safe keys are listed first and work; a changed key is kept across a reload ` +
        `(${viewport.width}×${viewport.height})`,
      async () => {
        const { page, errors } = await openUi(app.browser, app.served.url, viewport);
        await waitForPrompt(pane(page, 1));
        const tabs = page.getByRole('tab');
        const before = await tabs.count();
        await page.keyboard.press('Alt+Shift+T');
        await poll(() => tabs.count()).toBe(before + 1);
        await page.keyboard.press('Alt+Shift+1');
        await poll(() => tabs.first().getAttribute('aria-selected')).toBe('true');

        await page.keyboard.press('Control+Shift+P');
        await page.keyboard.type('keyboard shortcuts');
        await page.keyboard.press('Enter');
        const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
        const newTab = dialog.getByRole('row', { name: 'New tab', exact: true });
        await poll(async () => (await newTab.locator('kbd').allTextContents())[0]).toBe('Alt+Shift+T');
        const split = dialog.getByRole('row', { name: 'Split right', exact: true });
        await split.getByRole('button', { name: 'Change the key of Split right' }).click();
        await page.keyboard.press('Alt+Shift+R');
        await poll(() => split.locator('kbd').allTextContents()).toEqual(['Alt+Shift+R']);
        await page.screenshot({ path: join(root, `test-results/e2e-keys-${viewport.width}.png`) });
        await dialog.getByRole('button', { name: 'Done' }).click();

        // Kept in the profile: after a reload the new key splits the pane, the old one no longer does.
        await page.waitForTimeout(400);
        await page.reload();
        await waitForPrompt(pane(page, 1));
        await pane(page, 1).click();
        await page.keyboard.press('Control+Shift+D');
        await page.waitForTimeout(300);
        expect(await page.locator('.pane:visible').count()).toBe(1);
        await page.keyboard.press('Alt+Shift+R');
        await poll(() => page.locator('.pane:visible').count()).toBe(2);

        // Reset: the default comes back.
        await page.keyboard.press('Control+Shift+P');
        await page.keyboard.type('keyboard shortcuts');
        await page.keyboard.press('Enter');
        await dialog.getByRole('button', { name: 'Reset the key of Split right' }).click();
        await poll(() => split.locator('kbd').allTextContents()).toEqual(['Ctrl+Shift+D']);
        await dialog.getByRole('button', { name: 'Done' }).click();
        expect(errors).toEqual([]);
        await page.close();
      },
    );
  }
});
