// "Approve command" arriving while the person types (issue 39, items 2 and 3): the dialog waits for a pause, and the
// first thing the person does with the mouse meanwhile does what it says. A click on Approve once approves (the note
// that it waited used to vanish on the button going down, the buttons moved up, and the release landed elsewhere),
// and a reason typed at once into the field clicked keeps its spaces (the guard against keys on their way ate them).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { marker, openUi, pane, root, useServeAndBrowser, waitForPrompt, type Served } from './harness.js';

vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout });

const app = useServeAndBrowser(undefined, { configExtra: 'approvals:\n  mode: ask\n  timeout: 600\n' });

/** A scratch tree in alpha's cwd and the agent's call that deletes it, held until a person answers. */
function heldCall(
  served: Served,
  name: string,
): { path: string; command: string; call: Promise<{ code: number; stderr: string }> } {
  const path = join(served.dirs.alpha, name);
  mkdirSync(join(path, 'deep'), { recursive: true });
  writeFileSync(join(path, 'deep', 'file'), 'x');
  const command = `rm -rf ${name}`;
  const call = served.cli(['call', 'terminal', JSON.stringify({ command, execution_target: 'alpha' }), '--json']);
  return { path, command, call };
}

/**
 * Types into pane 1 without a pause until `stop()`, then returns at once: the dialog that came meanwhile is still
 * waiting for the pause (it takes the keyboard 1.2 s after the last key).
 */
function keepTyping(page: Page): { stop(): Promise<void> } {
  let on = true;
  const m = marker('typing');
  const done = (async () => {
    await page.keyboard.type(`echo ${m}`, { delay: 30 });
    for (let i = 0; on && i < 2000; i++) await page.keyboard.type(` w${i}`, { delay: 30 });
  })();
  return {
    stop: async () => {
      on = false;
      await done;
    },
  };
}

/** A person's click: the pointer goes to the middle of the element as it is now, presses, and lets go a moment on. */
async function personClick(page: Page, box: { x: number; y: number; width: number; height: number }): Promise<void> {
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await new Promise((r) => setTimeout(r, 90));
  await page.mouse.up();
}

describe('a request that arrives while the person types', () => {
  for (const viewport of [
    { width: 1400, height: 900 },
    { width: 900, height: 600 },
  ]) {
    const size = `${viewport.width}×${viewport.height}`;
    it(`the first click on Approve once approves, the dialog still waiting for a pause (${size})`, async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, viewport);
      await waitForPrompt(pane(page, 1));
      await pane(page, 1).locator('.xterm').click();
      const typing = keepTyping(page);
      const held = heldCall(app.served, `scratch-click-${viewport.width}`);
      const d = page.getByRole('alertdialog', { name: 'Approve command' });
      await poll(() =>
        d
          .getByLabel('command to approve')
          .textContent()
          .catch(() => ''),
      ).toBe(held.command);
      await page.screenshot({ path: join(root, `test-results/e2e-approve-waiting-${viewport.width}.png`) });
      await typing.stop();
      // Still waiting for the pause: the note is up when the person reaches for the button.
      expect(await d.getAttribute('data-waiting')).toBe('true');
      const button = d.getByRole('button', { name: 'Approve once' });
      const box = (await button.boundingBox())!;
      await personClick(page, box);
      const ran = await Promise.race([
        held.call,
        new Promise<'still held'>((r) => setTimeout(() => r('still held'), 15_000)),
      ]);
      expect(ran === 'still held' ? ran : ran.code).toBe(0);
      expect(existsSync(held.path)).toBe(false);
      await d.waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  it('a reason typed at once into the field the person clicked keeps every space', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await waitForPrompt(pane(page, 1));
    await pane(page, 1).locator('.xterm').click();
    const typing = keepTyping(page);
    const held = heldCall(app.served, 'scratch-reason');
    const d = page.getByRole('alertdialog', { name: 'Approve command' });
    await poll(() =>
      d
        .getByLabel('command to approve')
        .textContent()
        .catch(() => ''),
    ).toBe(held.command);
    await typing.stop();
    expect(await d.getAttribute('data-waiting')).toBe('true');
    const field = d.getByLabel('Reason for denying (sent to the agent)');
    await personClick(page, (await field.boundingBox())!);
    // Typed straight away, as fast as a person types.
    await page.keyboard.type('use the staging box', { delay: 25 });
    expect(await field.inputValue()).toBe('use the staging box');
    await page.screenshot({ path: join(root, 'test-results/e2e-approve-reason.png') });
    await d.getByRole('button', { name: 'Deny' }).click();
    const denied = await held.call;
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('use the staging box');
    expect(existsSync(held.path)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
