// Settings and the Add-target form as a newcomer met them (issue 39, items 1, 12 and 13): number fields take what is
// typed, the buttons of a tall dialog are in sight in a small window, the Sandbox field says what empty means, Quick
// connect is offered where it applies (SSH), and the shortcuts dialog shows every key whole.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { openUi, pane, root, useServeAndBrowser, windowSizes } from './harness.js';

vi.setConfig({ testTimeout: 180_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

const app = useServeAndBrowser();
const sizes = windowSizes;

/** Replaces a field's text as a person does: click, select all, type, Tab. */
async function retype(page: Page, field: Locator, text: string): Promise<void> {
  await field.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Tab');
}

/** The element is in the window and nothing covers its middle: a person can click it without scrolling. */
async function inSight(el: Locator): Promise<boolean> {
  return el.evaluate((node) => {
    const r = node.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > window.innerHeight || r.right > window.innerWidth) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && (hit === node || node.contains(hit));
  });
}

describe('Settings', () => {
  it('a number typed into Font size or Scrollback applies when the field is left, brought within range', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, sizes[0]);
    const rows = pane(page, 1).locator('.xterm-rows');
    await page.keyboard.press('Control+,');
    const d = page.getByRole('dialog', { name: 'Settings' });
    const font = d.getByLabel('Font size');
    const scrollback = d.getByLabel('Scrollback lines');

    await retype(page, font, '16');
    expect(await font.inputValue()).toBe('16');
    await poll(() => rows.evaluate((el) => getComputedStyle(el).fontSize)).toBe('16px');
    await retype(page, scrollback, '20000');
    expect(await scrollback.inputValue()).toBe('20000');
    // Beyond the range: brought to its end, not dropped.
    await retype(page, font, '99');
    expect(await font.inputValue()).toBe('32');
    await retype(page, font, '16');
    // The arrow keys still step it at once.
    await font.focus();
    await page.keyboard.press('ArrowUp');
    expect(await font.inputValue()).toBe('17');
    await poll(() => rows.evaluate((el) => getComputedStyle(el).fontSize)).toBe('17px');
    // Half-typed and left with Enter: applied too.
    await font.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('15');
    await page.keyboard.press('Enter');
    await poll(() => rows.evaluate((el) => getComputedStyle(el).fontSize)).toBe('15px');
    await page.screenshot({ path: join(root, 'test-results/e2e-settings-numbers.png') });

    // Kept: the dialog opened again shows what was typed.
    await d.getByRole('button', { name: 'Done' }).click();
    await page.keyboard.press('Control+,');
    expect(await d.getByLabel('Font size').inputValue()).toBe('15');
    expect(await d.getByLabel('Scrollback lines').inputValue()).toBe('20000');
    await d.getByRole('button', { name: 'Reset to defaults' }).click();
    await d.getByRole('button', { name: 'Done' }).click();
    expect(errors).toEqual([]);
    await page.close();
  });

  for (const size of sizes) {
    it(`Settings and Add target keep their buttons in sight (${size.width}×${size.height})`, async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, size);
      await page.keyboard.press('Control+,');
      const settings = page.getByRole('dialog', { name: 'Settings' });
      expect(await inSight(settings.getByRole('button', { name: 'Done' }))).toBe(true);
      expect(await inSight(settings.getByRole('button', { name: 'Reset to defaults' }))).toBe(true);
      await page.screenshot({ path: join(root, `test-results/e2e-settings-${size.width}.png`) });
      await settings.getByRole('button', { name: 'Done' }).click();

      await page.getByRole('button', { name: 'Add target' }).click();
      const form = page.getByRole('dialog', { name: 'Add target' });
      await form.getByLabel('Backend').selectOption('ssh');
      await form.getByText('More options').click();
      expect(await inSight(form.getByRole('button', { name: 'Add target' }))).toBe(true);
      expect(await inSight(form.getByRole('button', { name: 'Cancel' }))).toBe(true);
      await page.screenshot({ path: join(root, `test-results/e2e-add-target-${size.width}.png`) });
      await form.getByRole('button', { name: 'Cancel' }).click();
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});

describe('Add target', () => {
  it('offers Quick connect for SSH only', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, sizes[0]);
    await page.getByRole('button', { name: 'Add target' }).click();
    const form = page.getByRole('dialog', { name: 'Add target' });
    const backend = form.getByLabel('Backend');
    const quick = form.getByLabel('Quick connect');
    const options = await backend.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toEqual(expect.arrayContaining(['local', 'ssh', 'docker']));
    for (const b of options) {
      await backend.selectOption(b);
      expect(await quick.count(), `Quick connect on ${b}`).toBe(b === 'ssh' ? 1 : 0);
    }
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says in the Sandbox field that empty means sandboxed', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, sizes[0]);
    await page.getByRole('button', { name: 'Add target' }).click();
    const form = page.getByRole('dialog', { name: 'Add target' });
    await form.getByLabel('Backend').selectOption('local');
    await form.getByText('More options').click();
    const sandbox = form.getByLabel('Sandbox');
    const placeholder = (await sandbox.getAttribute('placeholder')) ?? '';
    expect(placeholder).not.toBe('off');
    expect(placeholder).toBe('empty = sandboxed');
    expect(await sandbox.inputValue()).toBe('');
    await page.screenshot({ path: join(root, 'test-results/e2e-add-target-sandbox.png') });
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('Keyboard shortcuts', () => {
  for (const size of sizes) {
    it(`shows every key whole (${size.width}×${size.height})`, async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, size);
      await page.keyboard.press('Control+,');
      await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Keys…' }).click();
      const d = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      const chips = d.locator('kbd');
      expect(await chips.count()).toBeGreaterThan(20);
      // Each chip inside its cell, its text not cut.
      const cut = await chips.evaluateAll((els) =>
        els
          .filter((k) => {
            const cell = k.closest('td')!.getBoundingClientRect();
            const r = k.getBoundingClientRect();
            return r.right > cell.right + 0.5 || r.left < cell.left - 0.5 || k.scrollWidth > k.clientWidth + 1;
          })
          .map((k) => k.textContent),
      );
      expect(cut).toEqual([]);
      await page.screenshot({ path: join(root, `test-results/e2e-keys-${size.width}.png`) });
      await d.getByRole('button', { name: 'Done' }).click();
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});
