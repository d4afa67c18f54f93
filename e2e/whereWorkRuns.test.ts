// The window says where agent work runs, and enabling a plugin is a person's informed act, through `serve` and
// Chromium: the sidebar's and the pane header's sandbox marks, what "Approve command" says of an unsandboxed call and
// of a request to leave the sandbox (approvable once only), and Plugins… with its confirmation in words.
//
// The Core of this branch does not fill `TargetInfo.sandbox` or a pending approval's `unsandboxed` / `outside_sandbox`
// yet (another change does), so the page's WebSocket is routed through the test, which adds them to what the real
// Core sends: every other byte, and every decision, is the real Core's.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Browser, Page, WebSocketRoute } from 'playwright-core';
import { asPerson, pane, root, screenshots, useServeAndBrowser, waitForPrompt, type Served } from './harness.js';

vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

const app = useServeAndBrowser(undefined, { configExtra: 'approvals:\n  mode: ask\n  timeout: 600\n' });

const UNSANDBOXED_REASON = 'sandbox: off in its spec';

/** What the Core of the sandbox change sends: alpha runs agent work unsandboxed, beta in bubblewrap. */
function withSandbox(t: Record<string, unknown>): Record<string, unknown> {
  if (t.name === 'alpha') return { ...t, sandbox: { state: 'unsandboxed', reason: UNSANDBOXED_REASON } };
  if (t.name === 'beta') return { ...t, sandbox: { state: 'sandboxed', kind: 'bubblewrap', network: false } };
  return t;
}

/** A call on alpha runs unsandboxed; one whose command names `outside` asks to leave beta's sandbox. */
function withApprovalFlags(a: Record<string, unknown>): Record<string, unknown> {
  if (String(a.command ?? '').includes('outside')) return { ...a, outside_sandbox: true };
  if (a.execution_target === 'alpha') return { ...a, unsandboxed: true };
  return a;
}

const isTargetList = (v: unknown): v is Array<Record<string, unknown>> =>
  Array.isArray(v) &&
  v.every((t) => typeof t === 'object' && t !== null && 'generation' in t && 'backend' in t && 'source' in t);
const isApprovalList = (v: unknown): v is Array<Record<string, unknown>> =>
  Array.isArray(v) && v.every((a) => typeof a === 'object' && a !== null && 'expires_at' in a && 'kind' in a);

function rewrite(text: string): string {
  let msg: { type?: string; event?: string; payload?: unknown; ok?: boolean; result?: unknown };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    return text;
  }
  if (msg.type === 'event' && msg.event === 'targets.changed' && isTargetList(msg.payload))
    msg.payload = msg.payload.map(withSandbox);
  else if (msg.type === 'event' && msg.event === 'approvals.changed' && isApprovalList(msg.payload))
    msg.payload = msg.payload.map(withApprovalFlags);
  else if (msg.type === 'result' && msg.ok && Array.isArray(msg.result) && msg.result.length > 0) {
    if (isTargetList(msg.result)) msg.result = msg.result.map(withSandbox);
    else if (isApprovalList(msg.result)) msg.result = msg.result.map(withApprovalFlags);
  }
  return JSON.stringify(msg);
}

/** The window with its WebSocket routed through `rewrite`; waits for the first pane's shell. */
async function openRouted(
  browser: Browser,
  served: Served,
  viewport = { width: 1400, height: 900 },
): Promise<{ page: Page; errors: string[] }> {
  rmSync(join(served.home, 'ui-state.json'), { force: true });
  const page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.routeWebSocket(/.*/, (ws: WebSocketRoute) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => server.send(m));
    server.onMessage((m) => ws.send(typeof m === 'string' ? rewrite(m) : m));
  });
  await page.goto(await asPerson(page, served.url));
  await page.getByRole('region', { name: 'Pane 1' }).waitFor();
  await waitForPrompt(pane(page, 1));
  return { page, errors };
}

function agentCall(
  served: Served,
  target: string,
  command: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return served.cli(['call', 'terminal', JSON.stringify({ command, execution_target: target }), '--json']);
}

function scratch(served: Served, target: 'alpha' | 'beta', name: string): string {
  const path = join(served.dirs[target], name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'file'), 'x');
  return path;
}

/** An agent's `rm -rf` of a fresh scratch folder on `target`, held on "Approve command" in a routed window. */
async function held(target: 'alpha' | 'beta', name: string) {
  const { page, errors } = await openRouted(app.browser, app.served);
  const path = scratch(app.served, target, name);
  const call = agentCall(app.served, target, `rm -rf ${name}`);
  const d = page.getByRole('alertdialog', { name: 'Approve command' });
  const note = d.getByRole('note', { name: 'Where it runs' });
  await note.waitFor({ timeout: 20_000 });
  await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
  return { page, errors, path, call, d, note };
}

describe('where agent work runs', () => {
  it(
    'marks an unsandboxed target in the sidebar, with its reason, and a sandboxed one quietly; a pane, the ' +
      "person's own shell, carries no sandbox mark",
    async () => {
      const { page, errors } = await openRouted(app.browser, app.served);
      const targets = page.getByRole('list', { name: 'Targets' });
      const alpha = targets.getByRole('listitem', { name: 'alpha' });
      const beta = targets.getByRole('listitem', { name: 'beta' });
      const mark = alpha.getByRole('note', { name: 'unsandboxed' });
      await mark.waitFor();
      await poll(() => mark.getAttribute('title')).toBe(
        `Agent commands here run with your own powers on this machine: ${UNSANDBOXED_REASON}`,
      );
      // The reason is its accessible description, not only a tooltip.
      const describedBy = await mark.getAttribute('aria-describedby');
      expect(await page.locator(`[id="${describedBy}"]`).textContent()).toContain(UNSANDBOXED_REASON);
      expect(await beta.getByRole('note', { name: 'sandboxed' }).getAttribute('title')).toBe(
        'Agent commands here run in a bubblewrap sandbox, without network',
      );
      expect(await beta.getByRole('note', { name: 'unsandboxed' }).count()).toBe(0);
      // The collapsed sidebar keeps only the row's button: its tooltip says it too.
      expect(await alpha.locator('.target__mini').getAttribute('title')).toContain(
        'with your own powers on this machine',
      );
      // Pane 1 is on the default target, alpha; pane 2 on beta. A person's pane is never sandboxed (only agent work
      // is): its header says nothing of a sandbox on either.
      await page.keyboard.press('Control+Shift+D');
      await pane(page, 2).getByRole('combobox', { name: 'Target' }).selectOption('beta');
      await poll(() => pane(page, 2).getByRole('status', { name: 'Working directory' }).textContent()).toBe(
        app.served.dirs.beta,
      );
      for (const n of [1, 2]) {
        const header = pane(page, n).locator('.pane__header');
        expect(await header.getByRole('note', { name: /sandboxed/ }).count()).toBe(0);
        expect(await header.textContent()).not.toMatch(/sandboxed/);
      }
      await screenshots(page, 'sandbox-marks');
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it('"Approve command" says plainly when the call runs unsandboxed; Deny has the focus, with a ring', async () => {
    const { page, errors, path, call, d, note } = await held('alpha', 'scratch-unsandboxed');
    expect(await note.textContent()).toBe(
      'This target is unsandboxed: the command runs with your own powers on this machine.',
    );
    expect(await d.getAttribute('aria-describedby')).toBe('approve-sandbox approve-lead approve-command');
    const deny = d.getByRole('button', { name: 'Deny' });
    expect(await deny.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
    expect(await deny.evaluate((el) => parseFloat(getComputedStyle(el).outlineWidth))).toBeGreaterThanOrEqual(2);
    for (const name of ['Approve once', 'Approve for session', 'Always allow'])
      expect(await d.getByRole('button', { name }).isVisible()).toBe(true);
    await screenshots(page, 'approve-unsandboxed');
    await deny.click();
    expect((await call).code).not.toBe(0);
    expect(existsSync(path)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a request to leave the sandbox says so and offers only Deny and Approve once', async () => {
    const { page, errors, path, call, d, note } = await held('beta', 'scratch-outside');
    expect(await note.textContent()).toContain('The agent asks to run this one command outside its sandbox');
    expect(await d.locator('.approve__actions').getByRole('button').allTextContents()).toEqual([
      'Deny',
      'Approve once',
    ]);
    await screenshots(page, 'approve-outside-sandbox');
    await d.getByRole('button', { name: 'Approve once' }).click();
    const ran = await call;
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('Plugins…', () => {
  it(
    'lists installed plugins; Enable first says what the plugin ' + 'allows, in words; Cancel changes nothing',
    async () => {
      const inst = await app.served.personCli(['plugins', 'install', join(root, 'examples/plugins/bwrap'), '--yes']);
      expect(inst.code, inst.stdout).toBe(0);
      const { page, errors } = await openRouted(app.browser, app.served);
      await pane(page, 1).locator('.xterm').click();
      await page.keyboard.press('Control+Shift+P');
      const palette = page.getByRole('dialog', { name: 'Commands' });
      await palette.getByRole('combobox', { name: 'Type a command' }).fill('plugins');
      await poll(() => palette.getByRole('option').first().textContent()).toBe('Plugins…');
      await page.keyboard.press('Enter');
      const plugins = page.getByRole('dialog', { name: 'Plugins' });
      const row = plugins.getByRole('table', { name: 'Installed plugins' }).getByRole('row', { name: 'bwrap' });
      await poll(() => row.textContent().catch(() => '')).toMatch(/bwrap.*1\.0\.0.*disabled/);

      await row.getByRole('button', { name: 'Enable bwrap…' }).click();
      const confirm = page.getByRole('dialog', { name: 'Enable bwrap?' });
      const allows = confirm.getByRole('list', { name: 'What enabling it allows' });
      expect(await allows.getByRole('listitem').allTextContents()).toEqual([
        'Its code runs on this machine with your own powers, in a process of its own.',
        'Its commands run on this machine, inside a sandbox or container it provides.',
        'Commands on its targets will not be asked about: it declares it is a container (targets that make ' +
          'folders of this machine writable still ask).',
        'It can start interactive shells.',
      ]);
      await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      expect(await confirm.textContent()).toContain(
        'bwrap 1.0.0 — Bubblewrap sandbox on this machine — read-only root, ' +
          'a private writable /workspace per target, no network. Enabling it loads it now and at every start:',
      );
      await screenshots(page, 'plugins-enable-confirm');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      expect(await row.textContent()).toMatch(/disabled/);

      await row.getByRole('button', { name: 'Enable bwrap…' }).click();
      await page.getByRole('dialog', { name: 'Enable bwrap?' }).getByRole('button', { name: 'Enable bwrap' }).click();
      await poll(() => row.textContent()).toMatch(/active/);
      await screenshots(page, 'plugins-list');
      await row.getByRole('button', { name: 'Disable bwrap' }).click();
      await poll(() => row.textContent()).toMatch(/disabled/);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
