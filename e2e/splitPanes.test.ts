// Split panes end to end: right and down, nested; focus moves by keyboard; dividers resize; zoom; a split starts in its
// source's cwd.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
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

const regions = (page: Page): Locator => page.getByRole('tabpanel').getByRole('region');

/** Waits until pane `p`'s terminal has the keyboard (what its cursor and header show a person). */
async function hasKeyboard(p: Locator): Promise<void> {
  await poll(() =>
    p.evaluate((el) => el.contains(document.activeElement) && document.activeElement?.tagName === 'TEXTAREA'),
  ).toBe(true);
}

/** Types into whichever terminal has the keyboard (no click, so focus is what the keys left it). */
async function typeHere(page: Page, line: string): Promise<void> {
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

async function box(l: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await l.boundingBox();
  if (!b) throw new Error('not laid out');
  return b;
}

describe('split panes', () => {
  for (const viewport of [
    { width: 1400, height: 900 },
    { width: 900, height: 600 },
  ]) {
    it(
      `splits right and down, and moves focus between panes by keyboard ` + `(${viewport.width}×${viewport.height})`,
      async () => {
        const { page, errors } = await openUi(app.browser, app.served.url, viewport);
        const p1 = pane(page, 1);
        await run(p1, 'cd sub');
        await poll(() => p1.getByRole('status', { name: 'Working directory' }).textContent()).toBe(
          join(app.served.dirs.alpha, 'sub'),
        );

        await page.keyboard.press('Control+Shift+D');
        const p2 = pane(page, 2);
        await waitForPrompt(p2);
        // The split opened on the same target, in the source pane's directory.
        expect(await p2.getByRole('combobox', { name: 'Target' }).inputValue()).toBe('alpha');
        await poll(() => p2.getByRole('status', { name: 'Working directory' }).textContent()).toBe(
          join(app.served.dirs.alpha, 'sub'),
        );

        await page.keyboard.press('Control+Shift+O');
        const p3 = pane(page, 3);
        await waitForPrompt(p3);
        const [b1, b2, b3] = [await box(p1), await box(p2), await box(p3)];
        expect(b2.x, 'pane 2 is right of pane 1').toBeGreaterThanOrEqual(b1.x + b1.width - 1);
        expect(Math.abs(b3.x - b2.x), 'pane 3 is under pane 2').toBeLessThan(2);
        expect(b3.y).toBeGreaterThanOrEqual(b2.y + b2.height - 1);
        expect(Math.abs(b1.height - (b2.height + b3.height)), 'pane 1 spans both').toBeLessThan(3);

        // Focus is in pane 3 (the new one). Alt+Left → pane 1, Alt+Right → pane 2 (the top one), Ctrl+Shift+Down → pane
        // 3.
        const [m1, m2, m3] = [marker('one'), marker('two'), marker('three')];
        await page.keyboard.press('Alt+ArrowLeft');
        await hasKeyboard(p1);
        await typeHere(page, `echo ${m1}`);
        await waitForText(p1, new RegExp(`^${m1}$`, 'm'));
        await page.keyboard.press('Alt+ArrowRight');
        await hasKeyboard(p2);
        await typeHere(page, `echo ${m2}`);
        await waitForText(p2, new RegExp(`^${m2}$`, 'm'));
        await page.keyboard.press('Control+Shift+ArrowDown');
        await hasKeyboard(p3);
        await typeHere(page, `echo ${m3}`);
        await waitForText(p3, new RegExp(`^${m3}$`, 'm'));
        expect(await terminalText(p1)).not.toContain(m2);
        expect(await terminalText(p2)).not.toContain(m3);
        await page.screenshot({ path: join(root, `test-results/e2e-split-nested-${viewport.width}.png`) });
        expect(errors).toEqual([]);
        await page.close();
      },
    );
  }

  it('resizes with the divider by keyboard and zooms one pane to the whole tab and back', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    await p1.getByRole('button', { name: 'Split right' }).click();
    await waitForPrompt(pane(page, 2));
    const divider = page.getByRole('separator', { name: 'Resize panes side by side' });
    expect(await divider.getAttribute('aria-valuenow')).toBe('50');
    const w0 = (await box(p1)).width;
    await divider.focus();
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    await poll(() => divider.getAttribute('aria-valuenow')).toBe('60');
    expect((await box(p1)).width).toBeGreaterThan(w0 + 50);

    // Drag it back to about a third.
    const d = await box(divider);
    const panel = await box(page.getByRole('tabpanel'));
    await page.mouse.move(d.x + d.width / 2, d.y + d.height / 2);
    await page.mouse.down();
    await page.mouse.move(panel.x + panel.width / 3, d.y + d.height / 2, { steps: 4 });
    await page.mouse.up();
    await poll(async () => Number(await divider.getAttribute('aria-valuenow'))).toBeLessThan(36);

    await pane(page, 2).getByRole('button', { name: 'Zoom pane' }).click();
    await poll(() => regions(page).count()).toBe(1);
    const zoomed = await box(pane(page, 2));
    expect(zoomed.width).toBeGreaterThan(panel.width - 4);
    await page.screenshot({ path: join(root, 'test-results/e2e-split-zoomed.png') });
    // The other pane's shell lived on behind the zoom.
    await page.keyboard.press('Control+Shift+Z');
    await poll(() => regions(page).count()).toBe(2);
    const m = marker('alive');
    await run(p1, `echo ${m}`);
    await waitForText(p1, new RegExp(`^${m}$`, 'm'));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('runs "Split down" from the command palette and keeps nested splits across a reload', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    await pane(page, 1).locator('.xterm').click();
    await page.keyboard.press('Control+Shift+P');
    const palette = page.getByRole('dialog', { name: 'Commands' });
    await palette.waitFor();
    await palette.getByRole('combobox', { name: 'Type a command' }).fill('split down');
    await poll(() => palette.getByRole('option').first().textContent()).toContain('Split down');
    await page.screenshot({ path: join(root, 'test-results/e2e-palette.png') });
    await page.keyboard.press('Enter');
    await poll(() => palette.count()).toBe(0);
    const p2 = pane(page, 2);
    await waitForPrompt(p2);
    const [b1, b2] = [await box(pane(page, 1)), await box(p2)];
    expect(b2.y).toBeGreaterThanOrEqual(b1.y + b1.height - 1);
    expect(Math.abs(b2.x - b1.x)).toBeLessThan(2);
    // The new pane has the keyboard.
    const m = marker('below');
    await typeHere(page, `echo ${m}`);
    await waitForText(p2, new RegExp(`^${m}$`, 'm'));
    await page.keyboard.press('Control+Shift+D');
    await waitForPrompt(pane(page, 3));
    // The layout is saved in the profile (debounced; flushed when the page goes away): three panes there.
    await poll(() => {
      try {
        return JSON.parse(readFileSync(join(app.served.home, 'ui-state.json'), 'utf8')).workspace.tabs[0].panes.length;
      } catch {
        return 0;
      }
    }).toBe(3);
    await page.close();

    const again = await openUi(app.browser, app.served.url, undefined, { keepWorkspace: true });
    await poll(() => regions(again.page).count()).toBe(3);
    const [r1, r2, r3] = [
      await box(pane(again.page, 1)),
      await box(pane(again.page, 2)),
      await box(pane(again.page, 3)),
    ];
    expect(r2.y, 'pane 2 still below pane 1').toBeGreaterThanOrEqual(r1.y + r1.height - 1);
    expect(r3.x, 'pane 3 still right of pane 2').toBeGreaterThanOrEqual(r2.x + r2.width - 1);
    expect([...errors, ...again.errors]).toEqual([]);
    await again.page.close();
  });
});
