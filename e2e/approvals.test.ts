// Approving agent commands in the window, against the real Core through `serve`: an agent's `rm -rf` (a
// `switchboard call` from outside the window) waits on "Approve command" until a person answers in Chromium.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import {
  asPerson,
  marker,
  openUi,
  pane,
  root,
  useServeAndBrowser,
  waitForPrompt,
  waitForText,
  type Served,
} from './harness.js';

vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

const app = useServeAndBrowser(undefined, { configExtra: 'approvals:\n  mode: ask\n  timeout: 600\n' });

type CallResult = { code: number; stdout: string; stderr: string };

/** A scratch tree in the target's cwd and the agent's call that deletes it (held until someone answers). */
function scratch(served: Served, target: 'alpha' | 'beta', name: string): { path: string; command: string } {
  const path = join(served.dirs[target], name);
  mkdirSync(join(path, 'deep'), { recursive: true });
  writeFileSync(join(path, 'deep', 'file'), 'x');
  return { path, command: `rm -rf ${name}` };
}

function agentCall(served: Served, target: string, command: string): Promise<CallResult> {
  return served.cli(['call', 'terminal', JSON.stringify({ command, execution_target: target }), '--json']);
}

function dialog(page: Page) {
  return page.getByRole('alertdialog', { name: 'Approve command' });
}

/** Waits for the dialog to show this command. */
async function asked(page: Page, command: string) {
  const d = dialog(page);
  await poll(() =>
    d
      .getByLabel('command to approve')
      .textContent()
      .catch(() => ''),
  ).toBe(command);
  return d;
}

describe('Approve command', () => {
  it('shows the held call; Approve once runs it and the same call asks again; Deny sends the reason back', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const s = scratch(app.served, 'alpha', 'scratch-once');
    const call = agentCall(app.served, 'alpha', s.command);
    const d = await asked(page, s.command);
    // What a person needs to decide: where, what, why; the flagged part highlighted; Deny has the focus.
    const text = await d.textContent();
    expect(text).toContain('alpha');
    expect(text).toContain(app.served.dirs.alpha);
    expect(text).toMatch(/Tool\s*terminal/);
    expect(text).toMatch(/Asked by\s*cli/);
    expect(await d.getByRole('list', { name: 'Why it asks' }).textContent()).toMatch(/delete/i);
    expect(await d.locator('mark').count()).toBeGreaterThan(0);
    expect(await d.getByRole('timer').textContent()).toMatch(/denies in \d+:\d\d/);
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
    expect(await page.locator('[aria-label="1 approval waiting"]').count()).toBeGreaterThan(0);
    expect(existsSync(s.path)).toBe(true);
    await page.screenshot({ path: join(root, 'test-results/e2e-approve-command.png') });
    await page.setViewportSize({ width: 900, height: 600 });
    await page.screenshot({ path: join(root, 'test-results/e2e-approve-command-900.png') });
    expect(await d.getByRole('button', { name: 'Always allow' }).isVisible()).toBe(true);
    await page.setViewportSize({ width: 1440, height: 900 });

    await d.getByRole('button', { name: 'Approve once' }).click();
    const ran = await call;
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(s.path)).toBe(false);
    await d.waitFor({ state: 'detached' });

    // Once is once: the same call asks again. Deny with a reason: the agent's error carries it.
    scratch(app.served, 'alpha', 'scratch-once');
    const again = agentCall(app.served, 'alpha', s.command);
    const d2 = await asked(page, s.command);
    await d2.getByLabel('Reason for denying (sent to the agent)').fill('keep that tree, use a temp dir');
    await d2.getByRole('button', { name: 'Deny' }).click();
    const denied = await again;
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('keep that tree, use a temp dir');
    expect(existsSync(s.path)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a request arriving while a person types takes no key: every key reaches the shell, none answers', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    await waitForPrompt(p1);
    const s = scratch(app.served, 'alpha', 'scratch-typing');
    const m = marker('typed');
    // Spaces and Enters: the keys that would answer a dialog that took the keyboard. The typing goes on until the
    // request is up and a dozen words after, however long the call takes to arrive.
    let seen = false;
    const typing = (async () => {
      await page.keyboard.type(`echo ${m}-first`, { delay: 40 });
      await page.keyboard.press('Enter');
      await page.keyboard.type(`echo ${m}`, { delay: 40 });
      let words = 0;
      for (let after = 0; after < 12 && words < 500; words++) {
        await page.keyboard.type(` w${words}`, { delay: 40 });
        if (seen) after++;
      }
      await page.keyboard.press('Enter');
      return words;
    })();
    await new Promise((r) => setTimeout(r, 300));
    let settled = false;
    const call = agentCall(app.served, 'alpha', s.command).finally(() => {
      settled = true;
    });
    const d = await asked(page, s.command);
    // It is up while keys still go out, waiting for a pause.
    await page.screenshot({ path: join(root, 'test-results/e2e-approve-while-typing.png') });
    expect(await d.getByRole('status').textContent()).toMatch(/pause in your typing/);
    // Said by the window's polite live region meanwhile; not modal yet: the window behind is still the person's.
    const announced = page.getByRole('log', { name: 'Announcements' });
    expect(await announced.textContent()).toContain(`wants to run ${s.command} on alpha`);
    expect(await d.getAttribute('aria-modal')).toBeNull();
    seen = true;
    const words = await typing;
    await waitForText(p1, new RegExp(`^${m}-first$`, 'm'));
    const said = Array.from({ length: words }, (_, i) => ` w${i}`).join('');
    await waitForText(p1, new RegExp(`^${m}${said}$`, 'm'));
    expect(settled).toBe(false);
    // After the pause it takes the keyboard, with Deny focused and its ring shown.
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
    expect(await d.getByRole('status').count()).toBe(0);
    expect(await d.getAttribute('aria-modal')).toBe('true');
    const ring = await d.getByRole('button', { name: 'Deny' }).evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(ring).not.toBe('none');
    await page.screenshot({ path: join(root, 'test-results/e2e-approve-after-typing.png') });
    expect(settled).toBe(false);
    expect(existsSync(s.path)).toBe(true);
    await d.getByRole('button', { name: 'Deny' }).click();
    expect((await call).code).not.toBe(0);
    expect(existsSync(s.path)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a command with a secret shows masked until the person asks to see it; the agent list never has it', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    await page.setViewportSize({ width: 1400, height: 900 });
    const s = scratch(app.served, 'alpha', 'scratch-secret');
    const secret = 'Hunter2SecretPw';
    const command =
      `${s.command} && curl -u admin:${secret} -H "Authorization: Bearer abcdefgh12345678" ` +
      `https://example.invalid/`;
    const call = agentCall(app.served, 'alpha', command);
    const d = dialog(page);
    const shown = d.getByLabel('command to approve');
    await poll(() => shown.textContent().catch(() => '')).toContain('rm -rf scratch-secret');
    const masked = await shown.textContent();
    expect(masked).toBe(
      `${s.command} && curl -u admin:[redacted] -H "Authorization: Bearer [redacted]" https://example.invalid/`,
    );
    expect(await d.textContent()).not.toContain(secret);
    // Masked, the flagged part is still marked.
    expect(await d.locator('mark').first().textContent()).toContain('rm -rf scratch-secret');
    // The agent's list holds what the dialog shows masked; the window's own list had the command whole.
    const listed = await app.served.cli(['approvals', 'list', '--json']);
    expect(listed.stdout).toContain('rm -rf scratch-secret');
    expect(listed.stdout).not.toContain(secret);
    await page.screenshot({ path: join(root, 'test-results/e2e-approve-secret-masked.png') });

    const reveal = d.getByRole('button', { name: 'Show secrets' });
    await reveal.click();
    await poll(() => shown.textContent()).toBe(command);
    // Revealed, the flagged part is highlighted again.
    expect(await d.locator('mark').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(root, 'test-results/e2e-approve-secret-shown.png') });
    await d.getByRole('button', { name: 'Hide secrets' }).click();
    await poll(() => shown.textContent()).toBe(masked);

    await d.getByRole('button', { name: 'Deny' }).click();
    expect((await call).code).not.toBe(0);
    expect(existsSync(s.path)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('queues requests one at a time; Approve for session covers that target only; Escape denies', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const a = scratch(app.served, 'alpha', 'scratch-session');
    scratch(app.served, 'beta', 'scratch-session');
    const onAlpha = agentCall(app.served, 'alpha', a.command);
    const d = await asked(page, a.command);
    const onBeta = agentCall(app.served, 'beta', a.command);
    // Two requests, never merged: "1 of 2", the older (alpha) first, then beta's.
    await poll(() => d.getByLabel('Request 1 of 2').count()).toBe(1);
    expect(await d.locator('.approve__target').textContent()).toBe('alpha');
    await d.getByRole('button', { name: 'Approve for session' }).click();
    expect((await onAlpha).code).toBe(0);
    await poll(() =>
      dialog(page)
        .locator('.approve__target')
        .textContent()
        .catch(() => ''),
    ).toBe('beta');
    await page.keyboard.press('Escape');
    const betaDenied = await onBeta;
    expect(betaDenied.code).not.toBe(0);
    expect(existsSync(join(app.served.dirs.beta, 'scratch-session'))).toBe(true);

    // The session approval holds on alpha: the same call runs without asking.
    scratch(app.served, 'alpha', 'scratch-session');
    const unasked = await agentCall(app.served, 'alpha', a.command);
    expect(unasked.code, unasked.stderr).toBe(0);
    expect(existsSync(a.path)).toBe(false);
    expect(await dialog(page).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('Always allow survives a Core restart and is revocable in the window', async () => {
    let { page } = await openUi(app.browser, app.served.url);
    const s = scratch(app.served, 'alpha', 'scratch-always');
    const first = agentCall(app.served, 'alpha', s.command);
    await (await asked(page, s.command)).getByRole('button', { name: 'Always allow' }).click();
    expect((await first).code).toBe(0);
    await poll(() => existsSync(join(app.served.home, 'approvals.json'))).toBe(true);
    await page.close();

    const url = await app.served.restart();
    scratch(app.served, 'alpha', 'scratch-always');
    const unasked = await agentCall(app.served, 'alpha', s.command);
    expect(unasked.code, unasked.stderr).toBe(0);
    expect(existsSync(s.path)).toBe(false);

    ({ page } = await openUi(app.browser, url));
    await page.keyboard.press('Control+Shift+P');
    await page.keyboard.type('approval rules');
    await page.keyboard.press('Enter');
    const rules = page.getByRole('dialog', { name: 'Approval rules' });
    const table = rules.getByRole('table', { name: 'Always-allow rules' });
    await table.waitFor();
    const row = table.getByRole('row').filter({ hasText: 'scratch-always' });
    expect(await row.textContent()).toContain('alpha');
    await page.screenshot({ path: join(root, 'test-results/e2e-approval-rules.png') });
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await rules.getByText('No always-allow rules.').waitFor();
    await rules.getByRole('button', { name: 'Done' }).click();

    // Revoked: it asks again.
    scratch(app.served, 'alpha', 'scratch-always');
    const asksAgain = agentCall(app.served, 'alpha', s.command);
    await (await asked(page, s.command)).getByRole('button', { name: 'Deny' }).click();
    expect((await asksAgain).code).not.toBe(0);
    expect(JSON.parse(readFileSync(join(app.served.home, 'approvals.json'), 'utf8'))).not.toMatchObject({
      rules: [{}],
    });
    await page.close();
  });
});

describe('no answer', () => {
  const short = useServeAndBrowser(undefined, { configExtra: 'approvals:\n  mode: ask\n  timeout: 3\n' });

  it('denies when the timeout runs out, and notifies while the window is in the background', async () => {
    const page = await short.browser.newPage({ viewport: { width: 1440, height: 900 } });
    // The window is behind another one: notices go through the web Notification API (recorded here).
    await page.addInitScript(() => {
      const notes: Array<{ title: string; body: string }> = [];
      (window as unknown as { __notes: typeof notes }).__notes = notes;
      class RecordedNotification {
        static permission = 'granted';
        static requestPermission = async () => 'granted';
        onclick: (() => void) | null = null;
        constructor(title: string, o: { body: string }) {
          notes.push({ title, body: o.body });
        }
        close(): void {
          // nothing to release: the fake socket holds nothing
        }
      }
      Object.defineProperty(window, 'Notification', { value: RecordedNotification });
      document.hasFocus = () => false;
    });
    await page.goto(await asPerson(page, short.served.url));
    await page.getByRole('region', { name: 'Pane 1' }).waitFor();
    const s = scratch(short.served, 'alpha', 'scratch-timeout');
    // A secret in the command is not in the notice (a lock screen shows it).
    const call = await agentCall(short.served, 'alpha', `${s.command} && curl -u a:NoticePw1 https://example.invalid/`);
    expect(call.code).not.toBe(0);
    expect(call.stderr).toMatch(/3 ?s/);
    expect(existsSync(s.path)).toBe(true);
    await poll(() => dialog(page).count()).toBe(0);
    const notes = await page.evaluate(
      () => (window as unknown as { __notes: Array<{ title: string; body: string }> }).__notes,
    );
    expect(notes).toEqual([
      {
        title: 'Approve command',
        body: expect.stringContaining(`alpha: ${s.command} && curl -u a:[redacted] https://example.invalid/`),
      },
    ]);
    await page.close();
  });
});
