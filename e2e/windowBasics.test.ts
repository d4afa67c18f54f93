// The terminal basics of Tabby and Wave in the window: find, copy/paste, the context menu, tabs (titles, rename,
// Ctrl+Tab), F6, zoom, small windows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  marker,
  openUi,
  pane,
  root,
  run,
  terminalText,
  useServeAndBrowser,
  waitForPrompt,
  waitForText,
} from './harness.js';

const app = useServeAndBrowser();

// Shells, CLI runs and Chromium share two cores with other work: wait for state generously (limits, not speed checks).
vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

describe('window basics', () => {
  it('finds a marker in the scrollback with a match count, copies it, and pastes it back', async () => {
    const { page, errors } = await openUi(
      app.browser,
      app.served.url,
      { width: 1400, height: 900 },
      { permissions: ['clipboard-read', 'clipboard-write'] },
    );
    const p1 = pane(page, 1);
    const m = marker('needle');
    // Twice in the output, with 60 lines between so the first has scrolled away.
    await run(p1, `echo ${m}; seq 1 60; echo ${m}`);
    await waitForText(p1, new RegExp(`^60\\n${m}$`, 'm'));

    await page.keyboard.press('Control+Shift+F');
    const find = p1.getByRole('search', { name: 'Find in terminal' });
    const field = find.getByRole('textbox', { name: 'Find' });
    await poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    await field.fill(m);
    const count = find.getByRole('status');
    // Twice on the command line, twice in the output.
    await poll(() => count.textContent()).toMatch(/^\d of 4$/);
    const first = await count.textContent();
    await page.keyboard.press('Enter');
    await poll(() => count.textContent()).not.toBe(first);
    await poll(() => count.textContent()).toMatch(/^\d of 4$/);
    await field.fill('no-such-text-here');
    await poll(() => count.textContent()).toBe('No results');
    await field.fill(m);
    await poll(() => count.textContent()).toMatch(/of 4$/);
    await page.screenshot({ path: join(root, 'test-results/e2e-find.png') });

    // The match is the selection: Ctrl+Shift+C copies it.
    await page.keyboard.press('Control+Shift+C');
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(m);
    await page.keyboard.press('Escape');
    await poll(() => find.count()).toBe(0);

    // Back in the terminal: Ctrl+Shift+V pastes it into a command line.
    await page.keyboard.type('echo pasted-');
    await page.keyboard.press('Control+Shift+V');
    // The paste reads the clipboard asynchronously: Enter waits until it is on the command line, as a person would.
    await waitForText(p1, new RegExp(`echo pasted-${m}$`, 'm'));
    await page.keyboard.press('Enter');
    await waitForText(p1, new RegExp(`^pasted-${m}$`, 'm'));

    // Plain Ctrl+V is the shell's (quoted insert), as in VS Code and Tabby on Linux.
    await page.evaluate(() => navigator.clipboard.writeText('should-not-appear'));
    await page.keyboard.press('Control+V');
    // readline's quoted insert takes the next key literally, with the terminal's signals off until it has read it:
    // Ctrl+C waits for the q on the command line, or it would arrive as a plain byte. Then it drops the line.
    await page.keyboard.type('q');
    await waitForText(p1, /\$ q$/);
    await page.keyboard.press('Control+C');
    await waitForText(p1, /\^C\n.*\$ *$/);
    expect(await terminalText(p1)).not.toContain('should-not-appear');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('has a right-click menu that splits, finds and clears', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    const m = marker('menu');
    await run(p1, `echo ${m}`);
    await waitForText(p1, new RegExp(`^${m}$`, 'm'));
    await p1.locator('.xterm').click({ button: 'right' });
    const menu = page.getByRole('menu', { name: 'Terminal' });
    await menu.waitFor();
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([
      'CopyCtrl+Shift+C',
      'PasteCtrl+Shift+V',
      'Clear terminal',
      'Split rightCtrl+Shift+D',
      'Split downCtrl+Shift+O',
      'Find in terminalCtrl+Shift+F',
    ]);
    await page.screenshot({ path: join(root, 'test-results/e2e-context-menu.png') });
    await menu.getByRole('menuitem', { name: /^Clear terminal/ }).click();
    await poll(async () => (await terminalText(p1)).includes(m)).toBe(false);
    await p1.locator('.xterm').click({ button: 'right' });
    await page.keyboard.press('Escape');
    await poll(() => menu.count()).toBe(0);
    await p1.locator('.xterm').click({ button: 'right' });
    await menu.getByRole('menuitem', { name: /^Split right/ }).click();
    await waitForPrompt(pane(page, 2));
    expect(errors).toEqual([]);
    await page.close();
  });

  it(
    'titles tabs by the program or target: cwd, ' + 'renames by double-click, and moves with Ctrl+Tab and Ctrl+1…9',
    async () => {
      const { page, errors } = await openUi(app.browser, app.served.url);
      const tabs = page.getByRole('tab');
      await poll(() => tabs.first().textContent()).toContain(`alpha: `);
      await run(pane(page, 1), `printf '\\033]0;%s\\007' build-box`);
      await poll(() => tabs.first().textContent()).toBe('build-box');

      await page.keyboard.press('Control+Shift+T');
      await poll(() => tabs.count()).toBe(2);
      await waitForPrompt(pane(page, 1));

      // Double-click renames; Escape cancels, Enter keeps.
      // (As a person does, type once the field has the keyboard: it takes it a frame after the double-click.)
      const name = page.getByRole('textbox', { name: 'Tab name' });
      const focused = (): Promise<boolean> => name.evaluate((el) => el === document.activeElement).catch(() => false);
      await tabs.first().dblclick();
      await poll(focused).toBe(true);
      await name.fill('ignored');
      await page.keyboard.press('Escape');
      await poll(() => tabs.first().textContent()).toBe('build-box');
      await tabs.first().dblclick();
      await poll(focused).toBe(true);
      await name.fill('logs');
      await page.keyboard.press('Enter');
      await poll(() => tabs.first().textContent()).toBe('logs');
      await page.screenshot({ path: join(root, 'test-results/e2e-tabs.png') });

      const selected = page.getByRole('tab', { selected: true });
      await poll(() => selected.textContent()).toBe('logs');
      await page.keyboard.press('Control+Tab');
      await poll(() => selected.textContent()).toContain('alpha');
      // The terminal of the tab in front has the keyboard.
      const m = marker('tab2');
      await page.keyboard.type(`echo ${m}`);
      await page.keyboard.press('Enter');
      await waitForText(pane(page, 1), new RegExp(`^${m}$`, 'm'));
      await page.keyboard.press('Control+Shift+Tab');
      await poll(() => selected.textContent()).toBe('logs');
      await page.keyboard.press('Control+2');
      await poll(() => selected.textContent()).toContain('alpha');
      await page.keyboard.press('Control+1');
      await poll(() => selected.textContent()).toBe('logs');

      // Drag the second tab onto the left half of the first: they swap.
      await tabs.nth(1).dragTo(tabs.first(), { targetPosition: { x: 4, y: 10 } });
      await poll(() => tabs.nth(1).textContent()).toBe('logs');
      expect(await tabs.first().textContent()).toContain('alpha');
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it('cycles the regions with F6 and zooms the terminal font with Ctrl+= / Ctrl+0', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    await p1.locator('.xterm').click();
    const region = () =>
      page.evaluate(() => document.activeElement?.closest('[data-region]')?.getAttribute('data-region'));
    const seen: Array<string | null | undefined> = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('F6');
      seen.push(await region());
    }
    expect(seen).toEqual(['processes', 'activity', 'sidebar', 'panes']);
    await page.keyboard.press('Shift+F6');
    expect(await region()).toBe('sidebar');
    await page.keyboard.press('F6');

    const rows = () => p1.locator('.xterm-rows').evaluate((el) => el.children.length);
    const fontSize = () => p1.locator('.xterm-rows').evaluate((el) => getComputedStyle(el).fontSize);
    // Fitted: the grid fills the pane to within one row (before the first fit xterm has its default 24 rows).
    const fitted = () =>
      p1.locator('.xterm').evaluate((el) => {
        const screen = el.querySelector('.xterm-screen') as HTMLElement | null;
        const n = el.querySelector('.xterm-rows')?.children.length ?? 0;
        return screen !== null && n > 0 && el.clientHeight - screen.clientHeight < screen.clientHeight / n;
      });
    expect(await fontSize()).toBe('13px');
    await poll(fitted).toBe(true);
    const rowsBefore = await rows();
    await page.keyboard.press('Control+Equal');
    await page.keyboard.press('Control+Equal');
    await poll(fontSize).toBe('15px');
    await poll(rows).toBeLessThan(rowsBefore);
    await page.keyboard.press('Control+0');
    await poll(fontSize).toBe('13px');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps COMMAND and SUMMARY at 900×600, and collapses the sidebar to icons with Ctrl+B', async () => {
    const m = marker('small');
    const started = await app.served.cli([
      'call',
      'terminal',
      JSON.stringify({ command: `sleep 60; echo ${m}`, background: true, execution_target: 'alpha' }),
      '--json',
    ]);
    expect(started.stderr).toBe('');
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 900, height: 600 });
    const processes = page.getByRole('table', { name: 'Processes' });
    const activity = page.getByRole('table', { name: 'Activity feed' });
    await processes.getByRole('row', { name: `sleep 60; echo ${m}` }).waitFor();
    await activity.getByRole('row').filter({ hasText: m }).first().waitFor();
    const width = async (t: typeof processes, name: string) =>
      (await t.getByRole('columnheader', { name, exact: true }).boundingBox())?.width ?? 0;
    expect(await width(processes, 'Command')).toBeGreaterThan(100);
    expect(await width(activity, 'Summary')).toBeGreaterThan(100);
    // The picker keeps the whole target name.
    const picker = pane(page, 1).getByRole('combobox', { name: 'Target' });
    expect(await picker.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await page.screenshot({ path: join(root, 'test-results/e2e-small-window.png') });

    const sidebar = page.getByRole('complementary', { name: 'Sidebar' });
    const wide = (await sidebar.boundingBox())?.width ?? 0;
    await sidebar.getByRole('button', { name: 'Collapse sidebar' }).focus();
    await page.keyboard.press('Control+B');
    await poll(async () => (await sidebar.boundingBox())?.width ?? 0).toBeLessThan(60);
    expect(await width(processes, 'Command')).toBeGreaterThan(100);
    // Icons only: each target is one button that opens a terminal there.
    await sidebar.getByRole('button', { name: 'New terminal on beta' }).click();
    await poll(() => page.getByRole('tab').count()).toBe(2);
    await waitForPrompt(pane(page, 1));
    await page.screenshot({ path: join(root, 'test-results/e2e-small-window-collapsed.png') });
    await page.keyboard.press('Control+Shift+B');
    await poll(async () => (await sidebar.boundingBox())?.width ?? 0).toBeCloseTo(wide, 0);
    await app.served.cli(['call', 'process', JSON.stringify({ action: 'list' })]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('settings', () => {
  it('follows the system theme, lets Settings override it, and keeps the choice across a reload', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const background = () =>
      pane(page, 1)
        .locator('.xterm-viewport')
        .evaluate((el) => getComputedStyle(el).backgroundColor);
    await page.emulateMedia({ colorScheme: 'dark' });
    await poll(background).toBe('rgb(12, 14, 18)');
    await page.emulateMedia({ colorScheme: 'light' });
    await poll(background).toBe('rgb(251, 251, 252)');

    await page.keyboard.press('Control+Comma');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    await dialog.getByRole('spinbutton', { name: 'Scrollback lines' }).fill('20000');
    await dialog.getByRole('checkbox', { name: 'Copy on select' }).check();
    expect(await dialog.getByText(/draws with/).textContent()).toContain('DOM renderer'); // SwiftShader is no GPU
    await page.screenshot({ path: join(root, 'test-results/e2e-settings.png') });
    await dialog.getByRole('button', { name: 'Done' }).click();
    await poll(background).toBe('rgb(12, 14, 18)');
    // Kept in the profile, not in this browser: a page with storage of its own starts with them too.
    await poll(() => JSON.parse(readFileSync(join(app.served.home, 'ui-state.json'), 'utf8')).settings).toMatchObject({
      theme: 'dark',
      scrollback: 20000,
      copyOnSelect: true,
    });
    const fresh = await openUi(app.browser, app.served.url, undefined, { keepWorkspace: true });
    await poll(() =>
      pane(fresh.page, 1)
        .locator('.xterm-viewport')
        .evaluate((el) => getComputedStyle(el).backgroundColor),
    ).toBe('rgb(12, 14, 18)');
    await fresh.page.close();
    await page.reload();
    await waitForPrompt(pane(page, 1));
    await poll(background).toBe('rgb(12, 14, 18)');
    await page.keyboard.press('Control+Comma');
    expect(await dialog.getByRole('spinbutton', { name: 'Scrollback lines' }).inputValue()).toBe('20000');
    expect(await dialog.getByRole('checkbox', { name: 'Copy on select' }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Reset to defaults' }).click();
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
    await page.close();
  });
});
