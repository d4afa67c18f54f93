// `targets register` into a weaker sandbox through the built CLI: refused unattended (without a Core and with one),
// one line per refused entry of a fleet, done by a person at a terminal (--yes, or their y), recorded in the audit log;
// registrations that weaken nothing still work unattended (controllers). The agent's token cannot do it either.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureBuilt,
  runCli,
  runCliAtTerminal,
  startServe,
  tempHome,
  type Served,
} from '../../../scripts/cliHarness.js';
import { connectCore } from '../transport/wsLink.js';

const root = tempHome('sb-cli-weaken-');
let n = 0;
/** A fresh profile per test: what one test registers never meets another's. */
const freshHome = (): string => {
  const home = join(root, `home-${++n}`);
  mkdirSync(home, { recursive: true });
  return home;
};

const OFF = 'sandbox: off weakens the sandbox (agent work would run with your powers)';
const refusal = (name: string, what: string, why: string): string =>
  `switchboard: targets register ${name}: ${what}: only a person at a terminal of their own may do this (${why}); ` +
  'run it there, or add it to config.yaml';

interface Listed {
  name: string;
  source: string;
  spec: Record<string, unknown>;
}
const runtime = async (home: string): Promise<Listed[]> =>
  (JSON.parse((await runCli(home, ['targets', 'list', '--json'])).stdout) as { targets: Listed[] }).targets.filter(
    (t) => t.source === 'runtime',
  );
const names = async (home: string): Promise<string[]> => (await runtime(home)).map((t) => t.name);

/** A fleet file: `a` weakens nothing, `b` asks for a writable path, `c` for no sandbox, `d` cuts the network. */
function fleet(home: string): string {
  const file = join(home, 'fleet.jsonl');
  writeFileSync(
    file,
    [
      `{"name":"a","backend":"local","cwd":"${root}"}`,
      '{"name":"b","backend":"local","sandbox":{"writable":["/srv/data"]}}',
      '{"name":"c","backend":"local","sandbox":"off"}',
      '{"name":"d","backend":"local","sandbox":{"network":false}}',
    ].join('\n'),
  );
  return file;
}
const B = 'writable /srv/data weakens the sandbox (agent work could write there)';

const auditLines = (home: string): Array<Record<string, unknown>> =>
  existsSync(join(home, 'audit.jsonl'))
    ? readFileSync(join(home, 'audit.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
const confirmations = (home: string): Array<Record<string, unknown>> =>
  auditLines(home).filter((l) => l.tool === 'targets.allowWeakening');

/** `register web --sandbox off --yes` at a terminal, carrying the mark Switchboard sets on agent work: refused. */
async function refusedWithMark(home: string): Promise<void> {
  const r = await runCliAtTerminal(
    home,
    ['targets', 'register', 'web', '--backend', 'local', '--sandbox', 'off', '--yes'],
    { SB_AGENT_WORK: '1' },
  );
  expect(r.status).toBe(2);
  expect(r.stdout).toContain(
    refusal('web', OFF, "it was started by an agent's tool call (its environment carries the mark of one)"),
  );
}

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a weaker sandbox, with no Core running', () => {
  it('is refused without a terminal, in one line naming what weakens and the way out', async () => {
    const home = freshHome();
    const r = await runCli(home, ['targets', 'register', 'web', '--backend', 'local', '--sandbox', 'off']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([refusal('web', OFF, 'stdin is not a terminal here')]);
    expect(await names(home)).toEqual([]);
    expect(confirmations(home)).toEqual([]);
  });

  it('--from: each weakening entry refused on its own line, the others registered', async () => {
    const home = freshHome();
    const r = await runCli(home, ['targets', 'register', '--from', fleet(home), '--provider', 'ctl']);
    expect(r.status).toBe(2);
    expect(r.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^registered local target "a" at generation \S+ \(provider ctl\)$/),
      expect.stringMatching(/^registered local target "d" /),
    ]);
    const why = 'stdin is not a terminal here';
    expect(r.stderr.trim().split('\n')).toEqual([
      refusal('b', B, why).replace('switchboard: ', 'switchboard: line 2 ("b"): '),
      refusal('c', OFF, why).replace('switchboard: ', 'switchboard: line 3 ("c"): '),
    ]);
    expect(await names(home)).toEqual(['a', 'd']);
  });

  it('weakening nothing works unattended: a new sandboxed target, a replacement as strong or stronger', async () => {
    const home = freshHome();
    const reg = (args: string[]) => runCli(home, ['targets', 'register', 'w', '--backend', 'local', ...args]);
    expect((await reg(['--sandbox', '{"network":false,"max_processes":64}'])).status).toBe(0);
    // Limits are not weakening; turning the network back on is.
    expect((await reg(['--replace', '--sandbox', '{"network":false,"max_processes":4096}'])).status).toBe(0);
    const on = await reg(['--replace']);
    expect(on.status).toBe(2);
    expect(on.stderr).toContain('targets register w: network on weakens the sandbox');
    // An SSH target has no local sandbox to weaken.
    expect((await runCli(home, ['targets', 'register', 's', '--backend', 'ssh', '--host', 'h'])).status).toBe(0);
    expect(await names(home)).toEqual(['w', 's']);
  });

  it('at a terminal: shows what weakens and asks; no is no, yes registers it and is in the audit log', async () => {
    const home = freshHome();
    const args = ['targets', 'register', 'web', '--backend', 'local', '--sandbox', 'off', '--owner-id', 'me'];
    const no = await runCliAtTerminal(home, args, {}, 'n');
    expect(no.stdout).toContain(`web: ${OFF}`);
    expect(no.stdout).toContain('Register web anyway? [y/N]');
    expect(no.stdout).toContain('switchboard: targets register web: not confirmed; nothing was written');
    expect(no.status).toBe(2);
    expect(await names(home)).toEqual([]);
    expect(confirmations(home)).toEqual([]);
    const yes = await runCliAtTerminal(home, args, {}, 'y');
    expect(yes.status).toBe(0);
    expect(yes.stdout).toMatch(/registered local target "web"/);
    expect((await runtime(home))[0]?.spec.sandbox).toBe('off');
    expect(confirmations(home)).toEqual([
      expect.objectContaining({
        kind: 'action',
        client: 'cli',
        execution_target: 'web',
        outcome: 'ok',
        args: `a person at a terminal confirmed registering web (provider cli, owner me) into a weaker sandbox: ${OFF}`,
      }),
    ]);
    expect((await runCli(home, ['audit', 'verify'])).status).toBe(0);
  });

  it('at a terminal with --yes: no question, a fleet registered whole', async () => {
    const home = freshHome();
    const r = await runCliAtTerminal(home, ['targets', 'register', '--from', fleet(home), '--yes']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`b: ${B}`);
    expect(r.stdout).not.toContain('[y/N]');
    expect(await names(home)).toEqual(['a', 'b', 'c', 'd']);
    expect(confirmations(home).map((l) => l.execution_target)).toEqual(['b', 'c']);
  });

  it("is refused at a terminal to a process that carries the mark of an agent's tool call", async () => {
    const home = freshHome();
    await refusedWithMark(home);
    expect(await names(home)).toEqual([]);
  });
});

describe('a weaker sandbox, with a Core running: the Core judges the CLI', { timeout: 120_000 }, () => {
  const home = freshHome();
  let served: Served;
  beforeAll(async () => {
    writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    box: { backend: local, cwd: ${root} }\n`);
    served = await startServe(home);
  }, 60_000);
  afterAll(() => served?.stop());

  it('refuses an unattended CLI, even with --yes; a fleet loses only its weakening entries', async () => {
    const one = await runCli(home, ['targets', 'register', 'web', '--backend', 'local', '--sandbox', 'off', '--yes']);
    expect(one.status).toBe(2);
    expect(one.stderr.trim().split('\n')).toEqual([refusal('web', OFF, 'stdin is not a terminal here')]);
    const many = await runCli(home, ['targets', 'register', '--from', fleet(home), '--provider', 'ctl']);
    expect(many.status).toBe(2);
    expect(many.stderr).toMatch(/line 2 \("b"\): targets register b: writable/);
    expect(many.stderr).toMatch(/line 3 \("c"\): targets register c: sandbox: off/);
    expect(await names(home)).toEqual(['a', 'd']);
    expect(confirmations(home)).toEqual([]);
  });

  it("refuses a CLI at a terminal that the Core finds an agent's (the mark of a tool call)", async () => {
    await refusedWithMark(home);
  });

  it('takes a person at a terminal (--yes), and the Core records it in Activity and audit.jsonl', async () => {
    const r = await runCliAtTerminal(home, [
      'targets',
      'register',
      'web',
      '--backend',
      'local',
      '--sandbox',
      'off',
      '--yes',
    ]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/registered local target "web"/);
    let lines: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 50 && lines.length === 0; i++) {
      lines = confirmations(home);
      if (!lines.length) await new Promise((res) => setTimeout(res, 100));
    }
    expect(lines).toEqual([
      expect.objectContaining({
        kind: 'action',
        client: 'cli',
        execution_target: 'web',
        outcome: 'ok',
        args: `a person at a terminal confirmed registering web (provider cli) into a weaker sandbox: ${OFF}`,
      }),
    ]);
    const person = await connectCore(served.url.replace('http', 'ws') + 'ws', served.token, undefined, served.approver);
    try {
      expect(
        (await person.client.call('activity.list', {})).filter((a) => a.tool === 'targets.allowWeakening'),
      ).toEqual([expect.objectContaining({ client: 'cli', execution_target: 'web', status: 'ok' })]);
    } finally {
      person.close();
    }
    // Weakening nothing needs nobody: a narrower replacement, unattended.
    const narrower = await runCli(home, ['targets', 'register', 'web', '--backend', 'local', '--replace']);
    expect(narrower.status).toBe(0);
  });

  it("the agent's token cannot register or replace a target into a weaker sandbox, nor vouch for one", async () => {
    expect(
      (await runCli(home, ['targets', 'register', 'held', '--backend', 'local', '--sandbox', '{"network":false}']))
        .status,
    ).toBe(0);
    const agent = await connectCore(served.url.replace('http', 'ws') + 'ws', served.token);
    try {
      for (const params of [
        { name: 'new-off', spec: { backend: 'local', sandbox: 'off' } },
        { name: 'held', spec: { backend: 'local' }, replace: true },
        { name: 'held', spec: { backend: 'local', sandbox: { writable: ['/'] } }, replace: true },
      ])
        await expect(agent.client.call('targets.register', params)).rejects.toMatchObject({ code: 'not_permitted' });
      await expect(
        agent.client.call('targets.allowWeakening', {
          entries: [{ name: 'held', weakenings: [OFF], provider: 'cli' }],
          confirmed: true,
        }),
      ).rejects.toMatchObject({ code: 'not_permitted' });
    } finally {
      agent.close();
    }
    expect((await runtime(home)).find((t) => t.name === 'held')?.spec.sandbox).toEqual({ network: false });
    expect((await names(home)).includes('new-off')).toBe(false);
  });
});
