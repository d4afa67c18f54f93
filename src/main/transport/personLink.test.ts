// A page is a person's only when it was opened from a person link: its secret rides in the URL's #fragment and is
// handed to the person alone (serve's terminal, `--link-fd`, `switchboard open`), never to stdout, core.json or a log,
// so a tool call that reads core.json has the token (the agent's capability) and nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { cliPath, ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';

/** One call over the page's socket (Origin set as a browser sets it); the error code and message, or 'ok'. */
async function fromPage(served: Served, method: string, params: unknown, approver?: string): Promise<string> {
  const origin = served.url.replace(/\/$/, '');
  const query =
    `token=${encodeURIComponent(served.token)}` +
    (approver !== undefined ? `&approver=${encodeURIComponent(approver)}` : '');
  const ws = new WebSocket(`${served.url.replace('http', 'ws')}ws?${query}`, { headers: { origin } });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  ws.send(JSON.stringify({ type: 'call', id: 1, method, params }));
  const reply = await new Promise<{ ok: boolean; error?: { code: string; message: string } }>((resolve) =>
    ws.once('message', (m) => resolve(JSON.parse(String(m)))),
  );
  ws.close();
  return reply.ok ? 'ok' : `${reply.error!.code}: ${reply.error!.message}`;
}

describe('the person link', () => {
  const home = tempHome('sb-person-');
  let served: Served;
  beforeAll(async () => {
    ensureBuilt();
    served = await startServe(home);
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('is handed to the descriptor serve was given, and is in no file of the profile', () => {
    expect(served.approver).toMatch(/^[\w-]{20,}$/);
    expect(served.openUrl).toContain(`#approver=${served.approver}`);
    for (const f of readdirSync(home, { recursive: true, withFileTypes: true })) {
      if (f.isFile()) expect(readFileSync(join(f.parentPath, f.name), 'latin1')).not.toContain(served.approver);
    }
  });

  it("makes the page a person's; without it (or with a wrong one) a person's methods are refused", async () => {
    // Past the person gate, the broker answers: there is no such pending approval.
    expect(await fromPage(served, 'approvals.decide', { id: 'nope', decision: 'approve' }, served.approver)).toMatch(
      /^bad_request: no pending approval nope/,
    );
    expect(await fromPage(served, 'approvals.decide', { id: 'nope', decision: 'approve' })).toMatch(
      /^not_permitted: only a person may use approvals.decide: this page was not opened from a person link/,
    );
    expect(
      await fromPage(served, 'approvals.decide', { id: 'nope', decision: 'deny' }, served.approver.slice(1) + 'x'),
    ).toMatch(/^not_permitted/);
    expect(await fromPage(served, 'pane.open', { execution_target: 'local', cols: 80, rows: 24 })).toMatch(
      /^not_permitted: only a person may use pane.open/,
    );
    // What an agent may do, it may do without the link.
    expect(await fromPage(served, 'targets.list', {})).toBe('ok');
  });
});

describe('serve on a terminal', () => {
  it('shows the person link on its terminal and prints only the address on stdout', async () => {
    ensureBuilt();
    const home = tempHome('sb-person-tty-');
    // `script` runs serve on a pty of its own (its controlling terminal) and copies what the terminal shows to a file;
    // serve's stdout goes to a pipe of the test's, as when a program keeps it.
    const dir = tempHome('sb-person-typescript-');
    const typescript = join(dir, 'terminal.txt');
    const command = `${process.execPath} ${cliPath} serve --port 0 > ${join(dir, 'stdout.txt')}`;
    const child = spawn('script', ['-qfec', command, typescript], {
      env: { ...process.env, SWITCHBOARD_HOME: home },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    try {
      let shown = '';
      for (let i = 0; i < 200 && !/#approver=\S+/.test(shown); i++) {
        await new Promise((r) => setTimeout(r, 100));
        try {
          shown = readFileSync(typescript, 'utf8');
        } catch {
          /* not written yet */
        }
      }
      const secret = /#approver=(\S+)/.exec(shown)?.[1];
      expect(secret).toBeDefined();
      const stdout = readFileSync(join(dir, 'stdout.txt'), 'utf8');
      expect(stdout).toMatch(/^Switchboard is serving at http:\/\/127\.0\.0\.1:\d+\/\n$/);
      expect(stdout).not.toContain(secret!);
      const token = (JSON.parse(readFileSync(join(home, 'core.json'), 'utf8')) as { token: string }).token;
      expect(stdout).not.toContain(token);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(home, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
