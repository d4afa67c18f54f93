// The habits people bring from Tabby and Wave: colour schemes, font and cursor, copy on select, find with case /
// regex / whole-word switches, tab colours and Duplicate tab — each seen in the window and kept in the profile.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { marker, openUi, pane, root, run, useServeAndBrowser, waitForPrompt, waitForText } from './harness.js';

const app = useServeAndBrowser();

// Shells and Chromium share two cores with other work: wait for state generously (limits, not speed checks).
vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

/** The screen as it is now at both sizes, dark and light, for a person to look at (never compared); ends 1400 dark. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [width, height] of [
    [1400, 900],
    [900, 600],
  ] as const) {
    for (const scheme of ['dark', 'light'] as const) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(root, `test-results/e2e-habits-${name}-${width}-${scheme}.png`) });
    }
  }
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
}

/** The profile's kept window state (settings and layout). */
const kept = (): { settings?: Record<string, unknown>; workspace?: { tabs: Array<Record<string, unknown>> } } =>
  JSON.parse(readFileSync(join(app.served.home, 'ui-state.json'), 'utf8'));

const viewportBackground = (p: Locator) =>
  p.locator('.xterm-viewport').evaluate((el) => getComputedStyle(el).backgroundColor);

/** The colour xterm drew a piece of output in (the DOM renderer's span holding it). */
const colourOf = (p: Locator, text: string) =>
  p
    .locator('.xterm-rows span', { hasText: text })
    .last()
    .evaluate((el) => getComputedStyle(el).color);

/** WCAG's contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string): number => {
    const [r, g, b] = (rgb.match(/\d+/g) ?? []).map((c) => {
      const v = Number(c) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

async function openSettings(page: Page): Promise<Locator> {
  await page.keyboard.press('Control+Comma');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  return dialog;
}

describe('terminal look', () => {
  it('draws the chosen colour scheme (background, ANSI colours) apart from the window theme, on reload', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    const p1 = pane(page, 1);
    const red = marker('red');
    const blue = marker('blue');
    await run(p1, `printf '\\033[31m%s\\033[0m \\033[94m%s\\033[0m\\n' ${red} ${blue}`);
    await waitForText(p1, new RegExp(`^${red} ${blue}$`, 'm'));
    await poll(() => viewportBackground(p1)).toBe('rgb(12, 14, 18)');

    const dialog = await openSettings(page);
    const scheme = dialog.getByRole('combobox', { name: 'Terminal colours' });
    expect(await scheme.inputValue()).toBe('window');
    expect((await scheme.locator('option').allTextContents()).length).toBeGreaterThanOrEqual(13);
    await scheme.selectOption({ label: 'Dracula' });
    await dialog.getByRole('img', { name: 'Preview of Dracula' }).waitFor();
    // Applied at once, under the open dialog.
    await poll(() => viewportBackground(p1)).toBe('rgb(40, 42, 54)');
    await shots(page, 'settings');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.emulateMedia({ colorScheme: 'light' });

    // The window is light, the terminal keeps its scheme: red is Dracula's, bright blue is Dracula's bright blue.
    await poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(await viewportBackground(p1)).toBe('rgb(40, 42, 54)');
    await poll(() => colourOf(p1, red)).toBe('rgb(255, 85, 85)');
    expect(await colourOf(p1, blue)).toBe('rgb(214, 172, 255)');
    // The space around the terminal takes the scheme too.
    expect(await p1.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(40, 42, 54)');
    await shots(page, 'scheme');
    await poll(() => kept().settings?.terminalScheme).toBe('dracula');

    await page.reload();
    await waitForPrompt(pane(page, 1));
    await poll(() => viewportBackground(pane(page, 1))).toBe('rgb(40, 42, 54)');
    await poll(() => colourOf(pane(page, 1), red)).toBe('rgb(255, 85, 85)');

    // Another scheme, a light one; then back to the window's own colours.
    const again = await openSettings(page);
    await again.getByRole('combobox', { name: 'Terminal colours' }).selectOption({ label: 'Solarized Light' });
    await poll(() => viewportBackground(pane(page, 1))).toBe('rgb(253, 246, 227)');
    // Solarized's red (220, 50, 47) is 3.9:1 on its own background: by default it is darkened to 4.5:1, as VS Code
    // does; "None" draws the scheme's exact palette.
    const contrastSetting = again.getByRole('combobox', { name: 'Minimum text contrast' });
    expect(await contrastSetting.inputValue()).toBe('4.5');
    await poll(async () => {
      const drawn = await colourOf(pane(page, 1), red);
      return drawn !== 'rgb(220, 50, 47)' && contrast(drawn, 'rgb(253, 246, 227)') >= 4.5;
    }).toBe(true);
    await contrastSetting.selectOption({ label: "None: the scheme's exact colours" });
    await poll(() => colourOf(pane(page, 1), red)).toBe('rgb(220, 50, 47)');
    await poll(() => kept().settings?.minimumContrast).toBe(1);
    await contrastSetting.selectOption('4.5');
    await page.emulateMedia({ colorScheme: 'light' });
    await again.getByRole('combobox', { name: 'Terminal colours' }).selectOption('window');
    await poll(() => viewportBackground(pane(page, 1))).toBe('rgb(251, 251, 252)');
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('applies font family and cursor style to every open pane, and falls back to monospace', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.keyboard.press('Control+Shift+D');
    await waitForPrompt(pane(page, 2));
    const font = (n: number) =>
      pane(page, n)
        .locator('.xterm-rows')
        .evaluate((el) => getComputedStyle(el).fontFamily);
    const cursorClasses = (n: number) =>
      pane(page, n)
        .locator('.xterm-rows .xterm-cursor')
        .evaluate((el) => [...el.classList].filter((c) => c.startsWith('xterm-cursor-')).sort());
    // The default: a blinking bar.
    await poll(() => cursorClasses(2)).toEqual(['xterm-cursor-bar', 'xterm-cursor-blink']);

    const dialog = await openSettings(page);
    await dialog.getByRole('button', { name: 'DejaVu Sans Mono' }).click();
    await poll(() => font(1)).toBe('"DejaVu Sans Mono", monospace');
    expect(await font(2)).toBe('"DejaVu Sans Mono", monospace');
    await dialog.getByRole('combobox', { name: 'Cursor' }).selectOption('block');
    await dialog.getByRole('checkbox', { name: 'Blinking cursor' }).uncheck();
    // A family this machine lacks: the terminal draws with its monospace font, never a proportional one.
    const family = dialog.getByRole('textbox', { name: 'Font family' });
    await family.fill('No Such Font Zq');
    await page.keyboard.press('Enter');
    await poll(() => font(2)).toBe('"No Such Font Zq", monospace');
    await dialog.getByRole('button', { name: 'Done' }).click();

    // Pane 2 has the keyboard (the split): a steady block; pane 1 too once it has it.
    await pane(page, 2).locator('.xterm').click();
    await poll(() => cursorClasses(2)).toEqual(['xterm-cursor-block']);
    await pane(page, 1).locator('.xterm').click();
    await poll(() => cursorClasses(1)).toEqual(['xterm-cursor-block']);
    expect(await font(1)).toBe('"No Such Font Zq", monospace');
    await poll(() => kept().settings).toMatchObject({
      fontFamily: 'No Such Font Zq',
      cursorStyle: 'block',
      cursorBlink: false,
    });

    const reset = await openSettings(page);
    await reset.getByRole('button', { name: 'Reset to defaults' }).click();
    await page.keyboard.press('Escape');
    await poll(() => cursorClasses(1)).toEqual(['xterm-cursor-bar', 'xterm-cursor-blink']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('copies on select what the mouse selected, and not what find selects', async () => {
    const clipboard = { permissions: ['clipboard-read', 'clipboard-write'] };
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 }, clipboard);
    const p1 = pane(page, 1);
    const m = marker('picked');
    await run(p1, `echo ${m} other-word`);
    await waitForText(p1, new RegExp(`^${m} other-word$`, 'm'));
    const dialog = await openSettings(page);
    await dialog.getByRole('checkbox', { name: 'Copy on select' }).check();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.evaluate(() => navigator.clipboard.writeText('before'));

    // Double-click the word in the output line (the last row showing it).
    const box = await p1.locator('.xterm-rows > div').evaluateAll((rows, word) => {
      const row = rows.findLast((r) => (r.textContent ?? '').replace(/\u00a0/g, ' ').startsWith(word));
      if (!row) return undefined;
      const r = row.getBoundingClientRect();
      return { x: r.left + 20, y: r.top + r.height / 2 };
    }, m);
    if (!box) throw new Error('the output row is not on screen');
    await page.mouse.dblclick(box.x, box.y);
    await poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(m);

    // Find selects its match; the clipboard keeps the person's copy.
    await page.keyboard.press('Control+Shift+F');
    await p1.getByRole('textbox', { name: 'Find' }).fill('other-word');
    await poll(() => p1.getByRole('search').getByRole('status').textContent()).toMatch(/of 2$/);
    await page.keyboard.press('Enter');
    await new Promise((r) => setTimeout(r, 500));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(m);
    await page.keyboard.press('Escape');

    const reset = await openSettings(page);
    await reset.getByRole('button', { name: 'Reset to defaults' }).click();
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('find with switches', () => {
  it('counts matches by case, regular expression and whole word, and says when a regex is not valid', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    const p1 = pane(page, 1);
    // A prompt and a screen without the words: the command line spells them in octal, then clears the screen and
    // the scrollback, so only the printed line holds them.
    await run(p1, `PS1='\\$ '`);
    await run(p1, `printf '\\033[H\\033[2J\\033[3J'; printf '\\106oo \\146oo \\146ood \\146ooo \\146o \\146oo_bar\\n'`);
    await waitForText(p1, /^Foo foo food fooo fo foo_bar$/m);

    await page.keyboard.press('Control+Shift+F');
    const find = p1.getByRole('search', { name: 'Find in terminal' });
    const field = find.getByRole('textbox', { name: 'Find' });
    const count = find.getByRole('status');
    const matchCase = find.getByRole('button', { name: 'Match case' });
    const regex = find.getByRole('button', { name: 'Use regular expression' });
    const wholeWord = find.getByRole('button', { name: 'Match whole word' });
    const pressed = (b: Locator) => b.getAttribute('aria-pressed');
    await poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    for (const b of [matchCase, regex, wholeWord]) expect(await pressed(b)).toBe('false');

    // Foo foo food fooo foo_bar: five, in any case.
    await field.fill('foo');
    await poll(() => count.textContent()).toMatch(/^\d of 5$/);
    // Alt+C: case counts. foo foo(d) foo(o) foo(_bar): four; Foo: one.
    await page.keyboard.press('Alt+C');
    expect(await pressed(matchCase)).toBe('true');
    await poll(() => count.textContent()).toMatch(/^\d of 4$/);
    await field.fill('Foo');
    await poll(() => count.textContent()).toBe('1 of 1');
    await field.fill('foo');
    // Alt+W: whole words only (food, fooo and foo_bar are other words): one.
    await page.keyboard.press('Alt+W');
    expect(await pressed(wholeWord)).toBe('true');
    await poll(() => count.textContent()).toBe('1 of 1');
    await matchCase.click();
    expect(await pressed(matchCase)).toBe('false');
    await poll(() => count.textContent()).toMatch(/^\d of 2$/);
    await wholeWord.click();

    // Without the regex switch, `fo+` is text that is not there; with Alt+R it matches Foo foo foo fooo fo foo.
    await field.fill('fo+');
    await poll(() => count.textContent()).toBe('No results');
    await page.keyboard.press('Alt+R');
    expect(await pressed(regex)).toBe('true');
    await poll(() => count.textContent()).toMatch(/^\d of 6$/);
    await page.keyboard.press('Enter');
    await poll(() => count.textContent()).toMatch(/^\d of 6$/);

    // A regex that does not compile: one clear line, no stale count; fixing it brings the count back.
    await field.fill('fo(');
    const problem = find.getByRole('alert');
    await poll(() => problem.textContent()).toBe('Not a valid regular expression: unterminated group');
    expect(await count.textContent()).toBe('');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await shots(page, 'find');
    await field.fill('fo(o)');
    await poll(() => problem.count()).toBe(0);
    await poll(() => count.textContent()).toMatch(/^\d of 5$/);

    // The switches stay as set for the next find bar, as in VS Code; Alt+R again turns regex off.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Shift+F');
    expect(await pressed(find.getByRole('button', { name: 'Use regular expression' }))).toBe('true');
    await page.keyboard.press('Alt+R');
    expect(await pressed(find.getByRole('button', { name: 'Use regular expression' }))).toBe('false');
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('tabs', () => {
  it('marks a tab with a colour from its menu, shown as a stripe and kept across a reload', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.keyboard.press('Control+Shift+T');
    await poll(() => page.getByRole('tab').count()).toBe(2);
    await waitForPrompt(pane(page, 1));
    const tabs = page.getByRole('tab');
    const stripe = (n: number) =>
      page
        .locator('.tab')
        .nth(n)
        .evaluate((el) => {
          const bar = el.querySelector('.tab__stripe');
          return bar ? getComputedStyle(bar).backgroundColor : 'none';
        });

    await tabs.first().click({ button: 'right' });
    const menu = page.getByRole('menu', { name: 'Tab' });
    await menu.waitFor();
    expect(await menu.getByRole('menuitemradio', { name: 'No colour' }).getAttribute('aria-checked')).toBe('true');
    await shots(page, 'tab-menu');
    await menu.getByRole('menuitemradio', { name: 'Green' }).click();
    await poll(() => menu.count()).toBe(0);
    await poll(() => stripe(0)).toBe('rgb(63, 163, 91)');
    expect(await stripe(1)).toBe('none');

    // From the keyboard: Shift+F10 on the second tab, arrows to Purple, Enter.
    await tabs.nth(1).focus();
    await page.keyboard.press('Shift+F10');
    await menu.waitFor();
    await poll(() =>
      menu.getByRole('menuitem', { name: 'Rename tab' }).evaluate((el) => el === document.activeElement),
    ).toBe(true);
    // End is Close tab; the colour above it is Purple.
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await poll(() => stripe(1)).toBe('rgb(163, 113, 247)');
    // Escape gives the keyboard back to the tab the menu was opened from.
    await tabs.nth(1).focus();
    await page.keyboard.press('Shift+F10');
    await menu.waitFor();
    await page.keyboard.press('Escape');
    await poll(() => menu.count()).toBe(0);
    expect(await tabs.nth(1).evaluate((el) => el === document.activeElement)).toBe(true);

    await poll(() => kept().workspace?.tabs.map((t) => t.color)).toEqual(['green', 'purple']);
    await page.reload();
    await waitForPrompt(pane(page, 1));
    await poll(() => page.getByRole('tab').count()).toBe(2);
    await poll(() => stripe(0)).toBe('rgb(63, 163, 91)');
    expect(await stripe(1)).toBe('rgb(163, 113, 247)');
    await shots(page, 'tab-colours');

    // No colour takes the stripe off.
    await page.getByRole('tab').first().click({ button: 'right' });
    await menu.getByRole('menuitemradio', { name: 'No colour' }).click();
    await poll(() => stripe(0)).toBe('none');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('duplicates a tab from its menu and from the palette: the same target, in the same directory', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    const sub = join(app.served.dirs.alpha, 'sub');
    const cwd = (n: number) => pane(page, n).getByRole('status', { name: 'Working directory' });
    await run(pane(page, 1), 'cd sub');
    await poll(() => cwd(1).textContent()).toBe(sub);

    const tabs = page.getByRole('tab');
    await tabs.first().click({ button: 'right' });
    await page.getByRole('menu', { name: 'Tab' }).getByRole('menuitem', { name: 'Duplicate tab' }).click();
    await poll(() => tabs.count()).toBe(2);
    await poll(() => page.getByRole('tab', { selected: true }).getAttribute('id')).toBe(
      await tabs.nth(1).getAttribute('id'),
    );
    await waitForPrompt(pane(page, 1));
    await poll(() => cwd(1).textContent()).toBe(sub);
    const m = marker('dup');
    // The new tab's terminal has the keyboard.
    await page.keyboard.type(`echo ${m}; pwd`);
    await page.keyboard.press('Enter');
    await waitForText(pane(page, 1), new RegExp(`^${m}\\n${sub}$`, 'm'));
    expect(await pane(page, 1).getByRole('combobox', { name: 'Target' }).inputValue()).toBe('alpha');

    // The palette's Duplicate tab: the same, after the tab in front.
    await page.keyboard.press('Control+Shift+P');
    await page.getByRole('combobox', { name: 'Type a command' }).fill('duplicate');
    await page.keyboard.press('Enter');
    await poll(() => tabs.count()).toBe(3);
    await waitForPrompt(pane(page, 1));
    await poll(() => cwd(1).textContent()).toBe(sub);
    expect(errors).toEqual([]);
    await page.close();
  });
});
