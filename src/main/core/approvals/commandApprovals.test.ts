import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PendingApproval } from '../../../shared/approvals.js';
import type { ActivityEntry } from '../../../shared/api.js';
import type { SwitchboardError } from '../../../shared/errors.js';
import { Core } from '../core.js';
import type { TargetSnapshot } from '../backends/index.js';
import { localProvider } from '../backends/providers.js';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { assertBound, bindingOf, namesTmp, type Authorization } from './commandApprovals.js';
import { asPerson } from '../platform/index.js';
import { specFingerprint } from '../registry/index.js';

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function core(mode: 'ask' | 'deny' | 'off' = 'ask', timeout = 600, names = ['a', 'b']): Promise<TestCore> {
  t = await makeTestCore(names, { extra: `approvals:\n  mode: ${mode}\n  timeout: ${timeout}\n` });
  return t;
}

/** The next pending approval (resolves as soon as the broker holds one). */
function nextPending(c: Core): Promise<PendingApproval> {
  return new Promise((resolve) => {
    const now = c.approvals.list()[0];
    if (now) return resolve(now);
    const off = c.approvals.onChange((list) => {
      if (list[0]) {
        off();
        resolve(list[0]);
      }
    });
  });
}

async function failure(p: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await p;
  } catch (err) {
    return err as SwitchboardError;
  }
  throw new Error('expected the call to fail');
}

async function auditLines(c: TestCore): Promise<Array<Record<string, unknown>>> {
  await c.core.audit.flush();
  const path = join(c.home, 'audit.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r.kind === 'approval');
}

/** A HOME of the test's own for whatever shell its Core starts (a health probe, a warm shell); undoes itself. */
function ownHome(): () => void {
  const saved = process.env.HOME;
  const home = mkdtempSync(join(tmpdir(), 'sb-appr-home-'));
  process.env.HOME = home;
  return () => {
    process.env.HOME = saved;
    rmSync(home, { recursive: true, force: true });
  };
}

function lastActivity(c: Core): ActivityEntry {
  return c.activity.list(1)[0]!;
}

describe('the approval step', () => {
  it('refuses hardline commands in every mode, without asking, on one line', async () => {
    for (const mode of ['ask', 'deny', 'off'] as const) {
      const c = await core(mode);
      const err = await failure(c.core.callTool('terminal', { command: 'rm -rf /' }, 'test'));
      expect(err.code).toBe('approval_denied');
      expect(err.message).toMatch(/^refused: .*recursive delete/);
      expect(err.message).not.toMatch(/\n/);
      expect(c.core.approvals.list()).toEqual([]);
      expect(lastActivity(c.core)).toMatchObject({ status: 'denied', approval: { decision: 'refuse', by: 'policy' } });
      expect(await auditLines(c)).toEqual([
        expect.objectContaining({ tool: 'terminal', outcome: 'refuse', by: 'policy', verdict: 'hardline' }),
      ]);
      await c.close();
      t = undefined;
    }
  });

  it('mode deny refuses dangerous commands without asking; safe ones run', async () => {
    const c = await core('deny');
    writeFileSync(join(c.dirs.a!, 'keep'), 'x');
    const err = await failure(c.core.callTool('terminal', { command: 'rm -rf ./keep' }, 'test'));
    expect(err.message).toMatch(/approvals\.mode is deny/);
    expect(existsSync(join(c.dirs.a!, 'keep'))).toBe(true);
    expect(await c.core.callTool('terminal', { command: 'echo fine' }, 'test')).toMatchObject({ output: 'fine\n' });
    expect(lastActivity(c.core).approval).toBeUndefined();
  });

  it('rm -rf of generated output runs unasked; of an output name git tracks a file in, it is refused', async () => {
    const c = await core('deny');
    const dir = c.dirs.a!;
    for (const d of ['build', 'node_modules/x', 'dist', 'data']) mkdirSync(join(dir, d), { recursive: true });
    for (const f of ['build/keep.sh', 'node_modules/x/i.js', 'dist/app.js', 'data/big.csv'])
      writeFileSync(join(dir, f), 'x');
    writeFileSync(join(dir, '.gitignore'), 'data/\n');
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' });
    git('init', '-q');
    git('add', 'build/keep.sh', '.gitignore');
    // Output by its name (nothing tracked in it), and what .gitignore ignores whatever its name, go unasked.
    await c.core.callTool('terminal', { command: 'rm -rf node_modules dist data' }, 'test');
    for (const d of ['node_modules', 'dist', 'data']) expect(existsSync(join(dir, d)), d).toBe(false);
    // build/ is an output name, but git tracks a file in it: work, which deny refuses.
    const err = await failure(c.core.callTool('terminal', { command: 'rm -rf build' }, 'test'));
    expect(err.message).toMatch(/recursive delete of .*\/build \(rm -rf\)/);
    expect(existsSync(join(dir, 'build/keep.sh'))).toBe(true);
  });

  it('judges inline Python on its syntax tree from the first call, the grammar loaded by that call', async () => {
    const c = await core('deny');
    // Under deny, code judged without its grammar would be refused (it asks): this runs only once the grammar read it.
    expect(await c.core.callTool('terminal', { command: 'python3 -c "print(6 * 7)"' }, 'test')).toMatchObject({
      output: '42\n',
    });
    writeFileSync(join(c.dirs.a!, 'keep'), 'x');
    // An alias only the syntax tree sees through.
    const err = await failure(
      c.core.callTool('terminal', { command: `python3 -c "import shutil as s; s.rmtree('keep')"` }, 'test'),
    );
    expect(err.message).toContain('shutil.rmtree');
    expect(err.message).not.toContain('not checked');
    expect(existsSync(join(c.dirs.a!, 'keep'))).toBe(true);
  });

  it('mode off runs dangerous commands unasked and records that', async () => {
    const c = await core('off');
    writeFileSync(join(c.dirs.a!, 'gone'), 'x');
    await c.core.callTool('terminal', { command: 'rm -rf ./gone' }, 'test');
    expect(existsSync(join(c.dirs.a!, 'gone'))).toBe(false);
    expect(lastActivity(c.core)).toMatchObject({ status: 'ok', approval: { decision: 'approve', by: 'mode' } });
  });

  it('mode ask holds the call until a person approves once; the same call asks again', async () => {
    const c = await core('ask');
    writeFileSync(join(c.dirs.a!, 'one'), 'x');
    const call = c.core.callTool('terminal', { command: 'rm -rf ./one' }, 'mcp');
    const p = await nextPending(c.core);
    expect(p).toMatchObject({
      kind: 'command',
      title: 'Approve command',
      tool: 'terminal',
      subject: 'command',
      command: 'rm -rf ./one',
      execution_target: 'a',
      backend: 'local',
      cwd: c.dirs.a,
      client: 'mcp',
    });
    expect(p.generation).toBe(c.core.listTargets().find((x) => x.name === 'a')!.generation);
    expect(p.reasons!.join(' ')).toMatch(/delete/);
    expect(p.highlights!.length).toBeGreaterThan(0);
    expect(existsSync(join(c.dirs.a!, 'one'))).toBe(true);
    c.core.approvals.decide({ id: p.id, decision: 'approve', scope: 'once' }, 'ui');
    expect(await call).toMatchObject({ exit_code: 0 });
    expect(existsSync(join(c.dirs.a!, 'one'))).toBe(false);
    expect(lastActivity(c.core)).toMatchObject({
      status: 'ok',
      approval: { decision: 'approve', scope: 'once', by: 'ui' },
    });
    const [line] = await auditLines(c);
    expect(line).toMatchObject({ outcome: 'approve', by: 'ui', scope: 'once', client: 'mcp', execution_target: 'a' });
    expect(typeof line!.waited_ms).toBe('number');

    const again = c.core.callTool('terminal', { command: 'rm -rf ./one' }, 'mcp');
    const p2 = await nextPending(c.core);
    c.core.approvals.decide({ id: p2.id, decision: 'deny' }, 'cli');
    await failure(again);
  });

  it("deny carries the person's reason back to the agent", async () => {
    const c = await core('ask');
    const call = c.core.callTool('terminal', { command: 'git push --force' }, 'mcp');
    const p = await nextPending(c.core);
    c.core.approvals.decide({ id: p.id, decision: 'deny', reason: 'not on\nmain please' }, 'ui');
    const err = await failure(call);
    expect(err.code).toBe('approval_denied');
    expect(err.message).toMatch(/^denied by a person: not on main please/);
    expect(lastActivity(c.core)).toMatchObject({
      status: 'denied',
      approval: { decision: 'deny', by: 'ui', reason: 'not on main please' },
    });
    expect(await auditLines(c)).toEqual([
      expect.objectContaining({ outcome: 'deny', by: 'ui', reason: 'not on main please' }),
    ]);
  });

  it('silence is not consent: the timeout denies', async () => {
    const c = await core('ask', 1);
    const err = await failure(c.core.callTool('terminal', { command: 'sudo true' }, 'mcp'));
    expect(err.message).toMatch(/no one answered within 1 s/);
    expect(lastActivity(c.core)).toMatchObject({ status: 'denied', approval: { decision: 'deny', by: 'timeout' } });
    expect(await auditLines(c)).toEqual([expect.objectContaining({ outcome: 'deny', by: 'timeout' })]);
  });

  it('a caller that goes away withdraws its request', async () => {
    const c = await core('ask');
    const ac = new AbortController();
    const call = c.core.dispatcher.call('terminal', { command: 'sudo true' }, { client: 'mcp', signal: ac.signal });
    await nextPending(c.core);
    ac.abort();
    const err = await failure(call);
    expect(err.code).toBe('cancelled');
    expect(c.core.approvals.list()).toEqual([]);
    expect(lastActivity(c.core)).toMatchObject({
      status: 'cancelled',
      approval: { decision: 'deny', by: 'withdrawn' },
    });
    expect(await auditLines(c)).toEqual([expect.objectContaining({ outcome: 'deny', by: 'withdrawn' })]);
  });

  it('session scope covers the same command on the same runtime identity only', async () => {
    const c = await core('ask');
    const first = c.core.callTool('terminal', { command: 'sudo  true' }, 'mcp');
    c.core.approvals.decide({ id: (await nextPending(c.core)).id, decision: 'approve', scope: 'session' }, 'ui');
    await first;
    // Same pattern (spacing and quoting normalised): not asked again.
    await c.core.callTool('terminal', { command: "sudo 'true'" }, 'mcp');
    expect(lastActivity(c.core)).toMatchObject({ status: 'ok', approval: { by: 'rule', scope: 'session' } });
    // Another target asks.
    const other = c.core.callTool('terminal', { command: 'sudo true', execution_target: 'b' }, 'mcp');
    const p = await nextPending(c.core);
    expect(p.execution_target).toBe('b');
    c.core.approvals.decide({ id: p.id, decision: 'deny' }, 'ui');
    await failure(other);
    // Another command asks.
    const diff = c.core.callTool('terminal', { command: 'sudo false' }, 'mcp');
    c.core.approvals.decide({ id: (await nextPending(c.core)).id, decision: 'deny' }, 'ui');
    await failure(diff);
  });

  it('always rules persist in approvals.json (0600), survive a restart, and are revocable', async () => {
    const c = await core('ask');
    const first = c.core.callTool('terminal', { command: 'sudo true' }, 'mcp');
    c.core.approvals.decide({ id: (await nextPending(c.core)).id, decision: 'approve', scope: 'always' }, 'ui');
    await first;
    const file = join(c.home, 'approvals.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const rules = (await c.core.invoke('approvals.rules', {}, asPerson)) as Array<{ id: string }>;
    expect(rules).toEqual([
      expect.objectContaining({ execution_target: 'a', tool: 'terminal', pattern: 'sudo true', created_by: 'ui' }),
    ]);

    await c.core.close();
    const again = await new Core({ home: c.home, providers: [localProvider] }).start();
    try {
      await again.callTool('terminal', { command: 'sudo true' }, 'mcp');
      expect(again.activity.list(1)[0]).toMatchObject({ approval: { by: 'rule', scope: 'always' } });
      await again.invoke('approvals.revoke', { id: rules[0]!.id }, asPerson);
      expect(await again.invoke('approvals.rules', {}, asPerson)).toEqual([]);
      const asked = again.callTool('terminal', { command: 'sudo true' }, 'mcp');
      again.approvals.decide({ id: (await nextPending(again)).id, decision: 'deny' }, 'ui');
      await failure(asked);
      await expect(again.invoke('approvals.revoke', { id: 'nope' }, asPerson)).rejects.toThrow(/no approval rule nope/);
    } finally {
      await again.close();
    }
    // c's Core is closed already; its close() below only removes the directory.
    c.core.close = async () => undefined;
  });

  it('a malformed approvals.json gives one problem line and no rules, never a crash', async () => {
    const c = await core('ask');
    writeFileSync(join(c.home, 'approvals.json'), '{"version":1,"rules":[{"id":1}]}');
    expect(await c.core.invoke('approvals.rules', {}, asPerson)).toEqual([]);
    expect(c.core.approvalRules.problem()).toMatch(/^approvals\.json is malformed at rules\.0\.id/);
    const call = c.core.callTool('terminal', { command: 'sudo true' }, 'mcp');
    c.core.approvals.decide({ id: (await nextPending(c.core)).id, decision: 'deny' }, 'ui');
    await failure(call);
  });

  it('write_file to a sensitive path asks; elsewhere it does not', async () => {
    const c = await core('ask');
    await c.core.callTool('write_file', { path: 'notes.txt', content: 'x' }, 'mcp');
    expect(lastActivity(c.core).approval).toBeUndefined();
    const call = c.core.callTool('write_file', { path: '.env', content: 'A=1' }, 'mcp');
    const p = await nextPending(c.core);
    expect(p).toMatchObject({ tool: 'write_file', subject: 'path', command: '.env' });
    c.core.approvals.decide({ id: p.id, decision: 'deny' }, 'ui');
    await failure(call);
    expect(existsSync(join(c.dirs.a!, '.env'))).toBe(false);
  });

  it(
    'the profile is refused to agents in every mode: writes into it, reads of core.json, through .. ' +
      'from the target',
    async () => {
      onTestFinished(ownHome());
      for (const mode of ['ask', 'off'] as const) {
        t = await makeTestCore(['a'], {
          extra: `approvals:\n  mode: ${mode}\n`,
          files: { 'core.json': '{"token":"secret"}\n' },
        });
        const c = t;
        const config = readFileSync(join(c.home, 'config.yaml'), 'utf8');
        // The target's cwd is a sibling of the profile: ../home is the profile.
        for (const [tool, args] of [
          ['write_file', { path: '../home/config.yaml', content: 'approvals: {mode: off}\n' }],
          ['patch', { path: '../home/config.yaml', old_string: 'mode', new_string: 'mode' }],
          ['read_file', { path: '../home/core.json' }],
          ['terminal', { command: 'echo "approvals: {mode: off}" >> ../home/config.yaml' }],
          ['terminal', { command: 'cat ../home/core.json' }],
          ['execute_code', { code: "print(open('../home/core.json').read())" }],
        ] as const) {
          const err = await failure(c.core.callTool(tool, args, 'mcp'));
          expect(err.code, `${tool} ${JSON.stringify(args)}`).toBe('approval_denied');
          expect(err.message).toMatch(/Switchboard (profile|agent token)/);
          expect(c.core.approvals.list()).toEqual([]);
        }
        expect(readFileSync(join(c.home, 'config.yaml'), 'utf8')).toBe(config);
        expect(await auditLines(c)).toEqual(
          Array(6).fill(expect.objectContaining({ outcome: 'refuse', by: 'policy', verdict: 'hardline' })),
        );
        // Reading the config (not the token) is not the policy's to refuse (inside the sandbox the profile is simply
        // not there), and work in the workspace goes on.
        const readConfig = await c.core.callTool('read_file', { path: '../home/config.yaml' }, 'mcp').then(
          () => undefined,
          (e: { code?: string }) => e,
        );
        expect(readConfig?.code).not.toBe('approval_denied');
        expect(await c.core.callTool('write_file', { path: 'notes.txt', content: 'x' }, 'mcp')).toMatchObject({
          bytes_written: 1,
        });
        await c.close();
        t = undefined;
      }
    },
  );

  it(
    'a symlink into the profile does not get a write or a token read past the guard; ' +
      'a search above the profile asks',
    async () => {
      onTestFinished(ownHome());
      t = await makeTestCore(['a'], {
        extra: 'approvals:\n  mode: ask\n',
        files: { 'core.json': '{"token":"secret"}\n' },
      });
      const c = t;
      symlinkSync(c.home, join(c.dirs.a!, 'innocent'));
      const config = readFileSync(join(c.home, 'config.yaml'), 'utf8');
      for (const [tool, args] of [
        ['write_file', { path: 'innocent/config.yaml', content: 'approvals: {mode: off}\n' }],
        ['read_file', { path: 'innocent/core.json' }],
        ['write_file', { path: 'innocent/plugins/evil/plugin.yaml', content: 'kind: backend\n' }],
      ] as const) {
        const err = await failure(c.core.callTool(tool, args, 'mcp'));
        expect(err.code, `${tool} ${JSON.stringify(args)}`).toBe('approval_denied');
        expect(err.message).toMatch(/Switchboard (profile|agent token)/);
      }
      expect(readFileSync(join(c.home, 'config.yaml'), 'utf8')).toBe(config);
      expect(existsSync(join(c.home, 'plugins', 'evil'))).toBe(false);
      const search = c.core.callTool('search_files', { pattern: 'token', target: 'content', path: '..' }, 'mcp');
      const p = await nextPending(c.core);
      expect((p.reasons ?? []).join(' ')).toMatch(/core\.json with the agent token/);
      c.core.approvals.decide({ id: p.id, decision: 'deny' }, 'ui');
      await failure(search);
    },
  );

  it('input written to a background shell is judged like a command; REPL lines and answers are not', async () => {
    const c = await core('ask');
    writeFileSync(join(c.dirs.a!, 'keep'), 'x');
    const bg = await c.core.callTool('terminal', { command: 'sh', background: true }, 'mcp');
    const id = String(bg.session_id);
    for (const data of ['y\n', 'print(1)\n', 'echo fine\n']) {
      await c.core.callTool('process', { action: 'write', session_id: id, data }, 'mcp');
      expect(lastActivity(c.core).approval).toBeUndefined();
    }
    const call = c.core.callTool('process', { action: 'write', session_id: id, data: 'rm -rf ./keep\n' }, 'mcp');
    const p = await nextPending(c.core);
    expect(p).toMatchObject({ tool: 'process', subject: 'command', command: 'rm -rf ./keep\n', execution_target: 'a' });
    c.core.approvals.decide({ id: p.id, decision: 'deny' }, 'ui');
    await failure(call);
    await c.core.callTool('process', { action: 'kill', session_id: id }, 'mcp');
    expect(existsSync(join(c.dirs.a!, 'keep'))).toBe(true);
  });

  it('nested execute_code calls go through the step too', async () => {
    const c = await core('ask');
    const call = c.core.callTool(
      'execute_code',
      { code: "import switchboard_tools as t\nprint(t.terminal(command='sudo true'))" },
      'mcp',
    );
    const p = await nextPending(c.core);
    expect(p).toMatchObject({ tool: 'terminal', command: 'sudo true', client: 'execute_code' });
    c.core.approvals.decide({ id: p.id, decision: 'deny', reason: 'no sudo' }, 'ui');
    const r = await call;
    expect(String(r.output)).toMatch(/no sudo/);
  });

  it('an approval does not carry to a new generation registered while it waited', async () => {
    const c = await core('ask');
    const call = c.core.callTool('terminal', { command: 'sudo true' }, 'mcp');
    const p = await nextPending(c.core);
    // Re-point target a (a new spec is a new generation) before anyone clicks.
    const cfg = join(c.home, 'config.yaml');
    writeFileSync(
      cfg,
      readFileSync(cfg, 'utf8').replace(
        `a: { backend: local, cwd: ${c.dirs.a} }`,
        `a: { backend: local, cwd: ${c.dirs.b} }`,
      ),
    );
    c.core.approvals.decide({ id: p.id, decision: 'approve', scope: 'session' }, 'ui');
    const err = await failure(call);
    expect(err.message).toMatch(/the approval was for a#c\w+, but target "a" is now a#c\w+/);
    expect(lastActivity(c.core)).toMatchObject({ status: 'denied', approval: { decision: 'refuse', by: 'binding' } });
  });
});

describe('namesTmp: a command, path or cwd that names /tmp as a folder', () => {
  const table: Array<[string, boolean]> = [
    ['rm -rf /tmp/build', true],
    ['cd /tmp && ls', true],
    ['cp x "/tmp/y"', true],
    ['echo hi > /tmp/out', true],
    ['/tmp', true],
    ['ls ./tmp', false],
    ['rm -rf /var/tmp/x', false],
    ['cat ~/tmpfile', false],
    ['ls /tmpx', false],
  ];
  for (const [text, names] of table) it(text, () => expect(namesTmp(text)).toBe(names));
  it("a workspace under the host's /tmp is the host's there, not the sandbox's own", () => {
    expect(namesTmp('rm -rf /tmp/work/build', '/tmp/work')).toBe(false);
    expect(namesTmp('/tmp/work', '/tmp/work')).toBe(false);
    expect(namesTmp('cp out /tmp/x', '/tmp/work')).toBe(true);
  });
});

describe('assertBound', () => {
  const snap = (generation: string, state: 'active' | 'draining' = 'active', cwd = '/a') =>
    ({
      name: 'a',
      generation,
      identity: `a#${generation}`,
      state,
      spec: { backend: 'local', cwd },
    }) as unknown as TargetSnapshot;
  const args = { command: 'sudo true' };
  const auth: Authorization = {
    args,
    binding: bindingOf('terminal', args, 'a#g1', specFingerprint({ backend: 'local', cwd: '/a' })),
  };
  it('accepts exactly what was approved where it was approved', () => {
    expect(() => assertBound(auth, 'terminal', { command: 'sudo true' }, snap('g1'), snap('g1'))).not.toThrow();
  });
  it('refuses changed arguments, another tool, another generation or spec, a draining target, a removed one', () => {
    expect(() => assertBound(auth, 'terminal', { command: 'sudo rm x' }, snap('g1'), snap('g1'))).toThrow(
      /arguments changed/,
    );
    expect(() => assertBound(auth, 'terminal', { command: 'sudo true', workdir: '/' }, snap('g1'), snap('g1'))).toThrow(
      /arguments changed/,
    );
    expect(() => assertBound(auth, 'execute_code', args, snap('g1'), snap('g1'))).toThrow(/arguments changed/);
    expect(() => assertBound(auth, 'terminal', args, snap('g2'), snap('g1'))).toThrow(/now a#g2/);
    expect(() => assertBound(auth, 'terminal', args, snap('g1', 'active', '/b'), snap('g1'))).toThrow(
      /the spec has changed since/,
    );
    expect(() => assertBound(auth, 'terminal', args, snap('g1', 'draining'), snap('g1'))).toThrow(/draining/);
    // Asked on a draining target (process write is allowed there): still draining is no change.
    expect(() => assertBound(auth, 'terminal', args, snap('g1', 'draining'), snap('g1', 'draining'))).not.toThrow();
    expect(() => assertBound(auth, 'terminal', args, undefined, snap('g1'))).toThrow(/now gone/);
  });
});
