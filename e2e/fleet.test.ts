// A fleet in the window: 300 runtime targets registered in one bulk run appear; the filter finds one by a fragment of
// its owner; owner groups open and close from the keyboard; compact rows fit a fleet on a screen.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openUi, root, useServeAndBrowser } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000 });

/** 100 targets each for three CI jobs, and one box of a lab owner only it has. */
function fleetFile(dir: string): string {
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    const job = ['job-41', 'job-42', 'nightly-7'][Math.floor(i / 100)]!;
    const owner = i === 137 ? 'lab-zebra-9' : job;
    lines.push(JSON.stringify({ name: `f${i}`, backend: 'local', cwd: dir, owner_id: owner }));
  }
  const file = join(dir, 'fleet.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const app = useServeAndBrowser();
const pages: Page[] = [];
/** A page closed after its test, passed or not (300 rows in a page left open slow the next). */
async function open(...args: Parameters<typeof openUi>) {
  const opened = await openUi(...args);
  pages.push(opened.page);
  return opened;
}
afterEach(async () => {
  for (const p of pages.splice(0)) await p.close();
});

const rows = (page: Page) => page.getByRole('list', { name: 'Targets' }).locator('li.target');
const header = (page: Page, owner: string) =>
  page.getByRole('list', { name: 'Targets' }).getByRole('button', { name: new RegExp(`^${owner} · `) });

describe('a fleet in the sidebar', () => {
  it('300 targets registered in bulk appear; the filter finds one by a fragment of its owner', async () => {
    const { page, errors } = await open(app.browser, app.served.url, { width: 1400, height: 900 });
    const reg = await app.served.cli([
      'targets',
      'register',
      '--from',
      fleetFile(join(app.served.home, '..')),
      '--provider',
      'ci',
    ]);
    expect(reg.stderr).toBe('');
    expect(reg.stdout.trim().split('\n')).toHaveLength(300);
    // Both config targets and all 300.
    await poll(() => rows(page).count()).toBe(302);
    await page.getByRole('listitem', { name: 'f299', exact: true }).waitFor();

    const filter = page.getByRole('searchbox', { name: 'Filter targets' });
    // `/` from anywhere in the sidebar goes to the filter.
    await page.getByRole('heading', { name: 'Targets' }).click();
    await page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'f3', exact: true }).focus();
    await page.keyboard.press('/');
    await poll(() => filter.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('zebr');
    await poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().getAttribute('aria-label')).toBe('f137');
    // Several words narrow together: owner and state.
    await filter.fill('nightly reach');
    await poll(() => rows(page).count()).toBe(100);
    await filter.fill('no such owner');
    await poll(() => page.getByRole('status').filter({ hasText: 'No target matches' }).count()).toBe(1);
    // Escape clears it.
    await filter.press('Escape');
    await poll(() => rows(page).count()).toBe(302);

    // The palette finds targets with the same words, and opens a terminal on the one picked.
    await page.keyboard.press('Control+Shift+P');
    const palette = page.getByRole('dialog', { name: 'Commands' });
    await palette.getByRole('combobox', { name: 'Type a command' }).fill('zebr');
    const option = palette.getByRole('option', { name: 'New terminal on f137' });
    await option.waitFor();
    expect(await palette.getByRole('option').count()).toBe(1);
    await option.click();
    await poll(() => page.getByRole('tab', { selected: true }).textContent()).toContain('f137');
    expect(errors).toEqual([]);
  });

  it('groups by owner, with counts and states; they close and open from the keyboard', async () => {
    const { page, errors } = await open(app.browser, app.served.url, { width: 1400, height: 900 });
    await poll(() => rows(page).count()).toBe(302);
    await page.getByRole('combobox', { name: 'Group targets' }).selectOption('owner');
    const job41 = header(page, 'ci/job-41');
    await poll(() => job41.textContent()).toMatch(/ci\/job-41· 100 targets/);
    expect(await header(page, 'ci/lab-zebra-9').textContent()).toMatch(/1 target\b/);
    expect(await header(page, 'config').getAttribute('aria-expanded')).toBe('true');

    // From the filter, Down goes to the first header (config), Down again through its two rows to the next header.
    await page.getByRole('searchbox', { name: 'Filter targets' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await poll(() => job41.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await poll(() => job41.getAttribute('aria-expanded')).toBe('false');
    expect(await rows(page).count()).toBe(202);
    // Collapsed, the next Down goes straight to the next group's header; Space closes that one too.
    await page.keyboard.press('ArrowDown');
    const job42 = header(page, 'ci/job-42');
    await poll(() => job42.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Space');
    await poll(() => rows(page).count()).toBe(103);
    await page.screenshot({ path: join(root, 'test-results/e2e-fleet-groups.png') });
    // Up, then Right opens job-41 again; Enter opens job-42.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowRight');
    await poll(() => job41.getAttribute('aria-expanded')).toBe('true');
    await job42.focus();
    await page.keyboard.press('Enter');
    await poll(() => rows(page).count()).toBe(302);
    await page.getByRole('combobox', { name: 'Group targets' }).selectOption('none');
    expect(errors).toEqual([]);
  });

  for (const scheme of ['light', 'dark'] as const) {
    for (const viewport of [
      { width: 1400, height: 900 },
      { width: 900, height: 600 },
    ]) {
      it(`compact rows: one line each (${scheme}, ${viewport.width}×${viewport.height})`, async () => {
        const { page, errors } = await open(app.browser, app.served.url, viewport);
        await page.emulateMedia({ colorScheme: scheme });
        await poll(() => rows(page).count()).toBe(302);
        await page.keyboard.press('Control+Comma');
        const dialog = page.getByRole('dialog', { name: 'Settings' });
        await dialog.getByRole('checkbox', { name: 'Compact target rows (one line each)' }).check();
        await dialog.getByRole('button', { name: 'Done' }).click();
        await poll(() => page.locator('li.target--compact').count()).toBe(302);
        await page.getByRole('combobox', { name: 'Group targets' }).selectOption('owner');
        const list = page.getByRole('list', { name: 'Targets' });
        const box = await list.boundingBox();
        const seen = await rows(page).evaluateAll(
          (els, bottom) => els.filter((el) => el.getBoundingClientRect().bottom <= bottom).length,
          (box?.y ?? 0) + (box?.height ?? 0),
        );
        await page.screenshot({ path: join(root, `test-results/e2e-fleet-${scheme}-${viewport.width}.png`) });
        if (viewport.height === 900) expect(seen).toBeGreaterThanOrEqual(30);
        else expect(seen).toBeGreaterThanOrEqual(15);
        await dialog.waitFor({ state: 'detached' });
        expect(errors).toEqual([]);
      });
    }
  }
});
