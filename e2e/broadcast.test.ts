// Broadcast input end to end: a person picks panes (palette, Ctrl+click on a header), every key and paste typed into
// one reaches each picked shell and no other, every receiving pane is marked, and stopping ends it.
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

const badge = (p: Locator): Locator => p.getByRole('status', { name: 'broadcasting', exact: true });
const bar = (page: Page): Locator => page.getByRole('status', { name: 'Broadcast input', exact: true });

async function palette(page: Page, words: string): Promise<void> {
  await page.keyboard.press('Control+Shift+P');
  const dialog = page.getByRole('dialog', { name: 'Commands' });
  await dialog.getByRole('combobox', { name: 'Type a command' }).fill(words);
  await poll(() => dialog.getByRole('option').count()).toBe(1);
  await page.keyboard.press('Enter');
  await poll(() => dialog.count()).toBe(0);
}

/** Ctrl+click on a pane's header (at its left end, away from the buttons). */
const pick = (p: Locator): Promise<void> =>
  p.locator('.pane__header').click({ modifiers: ['Control'], position: { x: 4, y: 12 } });

/**
 * A line the shell computes: `$((…))` is typed, its value is printed, so the marker with the value appears only as
 * output.
 */
const computed = (m: string): { line: string; output: RegExp } => ({
  line: `echo ${m}-$((6*7))`,
  output: new RegExp(`^${m}-42$`, 'm'),
});

describe('broadcast input', () => {
  for (const viewport of [
    { width: 1400, height: 900 },
    { width: 900, height: 600 },
  ]) {
    it(`types once into the picked panes, marks each, and stops (${viewport.width}×${viewport.height})`, async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, viewport, {
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      const [p1, p2, p3] = [pane(page, 1), pane(page, 2), pane(page, 3)];
      await page.keyboard.press('Control+Shift+D');
      await waitForPrompt(p2);
      await page.keyboard.press('Control+Shift+O');
      await waitForPrompt(p3);
      await p2.getByRole('combobox', { name: 'Target' }).selectOption('beta');
      await waitForPrompt(p2);

      // Pane 1 from the palette, pane 2 by Ctrl+click on its header; pane 3 stays out.
      await p1.locator('.xterm').click();
      await palette(page, 'selected panes');
      await poll(() => badge(p1).count()).toBe(1);
      await poll(() => bar(page).textContent()).toContain('1 pane marked');
      await pick(p2);
      await poll(() => badge(p2).count()).toBe(1);
      expect(await badge(p3).count()).toBe(0);
      await poll(() => bar(page).textContent()).toContain('Broadcasting input to 2 panes');
      expect(await p1.evaluate((el) => el.classList.contains('pane--broadcast'))).toBe(true);

      // Typed into pane 1: both shells compute it; pane 3 gets nothing.
      const typed = computed(marker('b'));
      await run(p1, typed.line);
      await waitForText(p1, typed.output);
      await waitForText(p2, typed.output);
      // Typed into pane 2 (the other member) goes to pane 1 as well.
      const back = computed(marker('back'));
      await run(p2, back.line);
      await waitForText(p1, back.output);
      await waitForText(p2, back.output);
      // A paste into a member is typed into all of them.
      const pasted = computed(marker('paste'));
      await page.evaluate((t) => navigator.clipboard.writeText(t), pasted.line);
      await p1.locator('.xterm').click();
      await page.keyboard.press('Control+Shift+V');
      // Compared unwrapped: a narrow pane folds the line.
      await poll(async () => (await terminalText(p2)).replace(/\n/g, '')).toContain(pasted.line);
      await page.keyboard.press('Enter');
      await waitForText(p1, pasted.output);
      await waitForText(p2, pasted.output);
      // The terminal's own answer to a program (here a cursor position report, asked for by pane 1's shell alone a
      // second after the line was typed) goes to that shell only: pane 2's `read` waits for one in vain.
      await run(
        p1,
        `sleep 1; case $PWD in */x) printf '\\033[6n';; esac; read -rs -t 3 -d R r; echo "report-$\{#r}-$((1+1))"`,
      );
      await waitForText(p1, /^report-[1-9]\d*-2$/m);
      await waitForText(p2, /^report-0-2$/m);
      // Typed into the pane outside the group: only there.
      const alone = computed(marker('alone'));
      await run(p3, alone.line);
      await waitForText(p3, alone.output);
      const p3Text = await terminalText(p3);
      for (const m of [typed, back, pasted]) expect(p3Text).not.toMatch(m.output);
      expect(await terminalText(p1)).not.toMatch(alone.output);
      await page.screenshot({ path: join(root, `test-results/e2e-broadcast-${viewport.width}.png`) });

      // Stop: the marks go and keys stay in their pane.
      await bar(page).getByRole('button', { name: 'Stop broadcasting' }).click();
      await poll(() => bar(page).count()).toBe(0);
      expect(await badge(p1).count()).toBe(0);
      expect(await badge(p2).count()).toBe(0);
      const after = computed(marker('after'));
      await run(p1, after.line);
      await waitForText(p1, after.output);
      // Pane 2's shell would have printed it by the time pane 1's did: give it a moment more, then check.
      await waitForPrompt(p2);
      await new Promise((r) => setTimeout(r, 500));
      expect(await terminalText(p2)).not.toMatch(after.output);
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  it('broadcasts to all panes of the tab; a closed pane leaves the group; a reload starts with none', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const [p1, p2] = [pane(page, 1), pane(page, 2)];
    await page.keyboard.press('Control+Shift+D');
    await waitForPrompt(p2);
    await page.keyboard.press('Control+Shift+D');
    await waitForPrompt(pane(page, 3));
    await palette(page, 'all panes in this tab');
    await poll(() => bar(page).textContent()).toContain('Broadcasting input to 3 panes');
    for (const n of [1, 2, 3]) expect(await badge(pane(page, n)).count()).toBe(1);
    // Ctrl+click takes one out again, and puts it back.
    await pick(p2);
    await poll(() => bar(page).textContent()).toContain('to 2 panes');
    expect(await badge(p2).count()).toBe(0);
    await pick(p2);
    await poll(() => bar(page).textContent()).toContain('to 3 panes');

    await pane(page, 3).getByRole('button', { name: 'Close pane' }).click();
    await poll(() => page.getByRole('tabpanel').getByRole('region').count()).toBe(2);
    await poll(() => bar(page).textContent()).toContain('to 2 panes');
    const typed = computed(marker('tab'));
    await run(p2, typed.line);
    await waitForText(p1, typed.output);
    await waitForText(p2, typed.output);
    // A member whose shell is (re)starting keeps what is typed meanwhile as type-ahead, as a pane of its own does.
    await p2.getByRole('combobox', { name: 'Target' }).selectOption('beta');
    const early = computed(marker('early'));
    await run(p1, early.line);
    await waitForText(p1, early.output);
    await waitForText(p2, early.output);
    expect(await badge(p2).count()).toBe(1);

    await page.reload();
    await waitForPrompt(pane(page, 1));
    await waitForPrompt(pane(page, 2));
    expect(await bar(page).count()).toBe(0);
    expect(await page.locator('.pane--broadcast').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
