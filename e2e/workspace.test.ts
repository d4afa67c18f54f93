// The window comes back as it was left: the same tabs, the same panes on the same targets (with new shells).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openUi, pane, useServeAndBrowser, waitForPrompt } from './harness.js';

const app = useServeAndBrowser();

describe('workspace', () => {
  it('restores tabs and panes after a reload, and falls back when a saved target is gone', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    await page.keyboard.press('Control+Shift+D');
    const p2 = pane(page, 2);
    await p2.getByRole('combobox', { name: 'Target' }).selectOption('beta');
    await waitForPrompt(p2);
    await page.keyboard.press('Control+Shift+T');
    await expect.poll(() => page.getByRole('tab').count()).toBe(2);
    // Saved in the profile (debounced), as the Core's conf store keeps it.
    await expect
      .poll(() => {
        try {
          return JSON.parse(readFileSync(join(app.served.home, 'ui-state.json'), 'utf8')).workspace.tabs.length;
        } catch {
          return 0;
        }
      })
      .toBe(2);
    await page.close();

    const again = await openUi(app.browser, app.served.url, undefined, { keepWorkspace: true });
    await expect.poll(() => again.page.getByRole('tab').count()).toBe(2);
    await again.page.getByRole('tab').first().click();
    const r1 = pane(again.page, 1);
    const r2 = pane(again.page, 2);
    expect(await r1.getByRole('combobox', { name: 'Target' }).inputValue()).toBe('alpha');
    expect(await r2.getByRole('combobox', { name: 'Target' }).inputValue()).toBe('beta');
    await waitForPrompt(r2);
    await again.page.close();

    // A target that no longer exists: its pane opens on the default target instead.
    const configPath = join(app.served.home, 'config.yaml');
    const config = readFileSync(configPath, 'utf8');
    writeFileSync(configPath, config.replace(/^ {4}beta:.*\n/m, ''));
    const third = await openUi(app.browser, app.served.url, undefined, { keepWorkspace: true });
    await third.page.getByRole('tab').first().click();
    expect(await pane(third.page, 2).getByRole('combobox', { name: 'Target' }).inputValue()).toBe('alpha');
    writeFileSync(configPath, config);
    expect([...errors, ...again.errors, ...third.errors]).toEqual([]);
  }, 60_000);
});
