// The registry live in a Core: per-dispatch snapshots, identity isolation across generations, drain and remove
// semantics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from './core.js';
import { defaultCoreOptions } from './defaults.js';
import { Registry } from './registry/index.js';
import { identitiesToRelease, type IdentityUse } from './retireIdentities.js';
import { asPerson } from './platform/index.js';

const root = mkdtempSync(join(tmpdir(), 'sb-retire-'));
const home = join(root, 'home');
const dirA = join(root, 'a');
const dirB = join(root, 'b');
let core: Core;
/** Another writer, as the CLI in another process would be. */
let cli: Registry;

const term = (args: Record<string, unknown>) => core.callTool('terminal', args, 'test');
const until = async (cond: () => boolean, ms = 3000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(join(dirA, 'sub'), { recursive: true });
  mkdirSync(dirB, { recursive: true });
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${root} }\n`);
  core = await new Core({ ...defaultCoreOptions(), home }).start();
  cli = new Registry(home);
});
afterAll(async () => {
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

describe('identitiesToRelease', () => {
  const none: IdentityUse = { openPanes: new Set<string>(), inFlight: new Set<string>(), busy: () => false };
  const cases: Array<[string, Partial<IdentityUse>, string[]]> = [
    ['releases a retired identity nothing uses', {}, ['old#g1']],
    ['keeps one with an open pane', { openPanes: new Set(['old#g1']) }, []],
    ['keeps one with a call in flight', { inFlight: new Set(['old#g1']) }, []],
    ['keeps one with background work', { busy: (id: string) => id === 'old#g1' }, []],
  ];
  for (const [what, use, expected] of cases) {
    it(what, () => {
      expect(identitiesToRelease(['live#g2', 'old#g1'], new Set(['live#g2']), { ...none, ...use })).toEqual(expected);
    });
  }
});

describe('a runtime target in a running Core', () => {
  it('is usable on the very next call after another writer registers it', async () => {
    await cli.register({ name: 'fresh', spec: { backend: 'local', cwd: dirA }, provider: 'cli', generation: 'f1' });
    const r = await term({ command: 'pwd', execution_target: 'fresh' });
    expect(r).toMatchObject({ execution_target: 'fresh', generation: 'f1', output: dirA + '\n' });
    expect(core.listTargets().find((t) => t.name === 'fresh')).toMatchObject({
      source: 'runtime',
      generation: 'f1',
      provider: 'cli',
    });
  });

  it('emits targets.changed within a second of a change made elsewhere', async () => {
    const seen = new Promise<number>((resolve) => {
      const t0 = Date.now();
      const off = core.onEvent((event, payload) => {
        if (event === 'targets.changed' && (payload as Array<{ name: string }>).some((t) => t.name === 'sidebar')) {
          off();
          resolve(Date.now() - t0);
        }
      });
    });
    await cli.register({ name: 'sidebar', spec: { backend: 'local' }, provider: 'cli' });
    // A hang guard, not a speed goal: bench/run.mjs measures how fast the sidebar hears of a registration.
    expect(await seen).toBeLessThan(5000);
  });

  it('keeps a slow call on the snapshot it started with when the target is replaced meanwhile', async () => {
    await cli.register({ name: 'snap', spec: { backend: 'local', cwd: dirA }, provider: 'cli', generation: 's1' });
    const slow = term({ command: 'sleep 0.6; pwd', execution_target: 'snap' });
    await new Promise((r) => setTimeout(r, 150));
    await cli.register({
      name: 'snap',
      spec: { backend: 'local', cwd: dirB },
      provider: 'cli',
      generation: 's2',
      replace: true,
    });
    const r = await slow;
    expect(r).toMatchObject({ execution_target: 'snap', generation: 's1', exit_code: 0, output: dirA + '\n' });
    expect(await term({ command: 'pwd', execution_target: 'snap' })).toMatchObject({
      generation: 's2',
      output: dirB + '\n',
    });
  });

  it('finishes a slow call when the target is removed meanwhile; the next call is unknown_target', async () => {
    await cli.register({ name: 'gone', spec: { backend: 'local', cwd: dirA }, provider: 'cli', generation: 'x1' });
    const slow = term({ command: 'sleep 0.6; echo still-here', execution_target: 'gone' });
    await new Promise((r) => setTimeout(r, 150));
    await cli.remove({ name: 'gone', provider: 'cli' });
    expect(await slow).toMatchObject({ generation: 'x1', exit_code: 0, output: 'still-here\n' });
    await expect(term({ command: 'true', execution_target: 'gone' })).rejects.toMatchObject({ code: 'unknown_target' });
    // Nothing of it runs any more: its environment is released.
    await until(() => !core.sessions.identities().includes('gone#x1'));
  });

  it("never hands the old generation's cwd to the new one", async () => {
    await cli.register({ name: 'iso', spec: { backend: 'local', cwd: dirA }, provider: 'cli', generation: 'i1' });
    expect(await term({ command: 'cd sub; export ISO_VAR=old', execution_target: 'iso' })).toMatchObject({
      cwd: join(dirA, 'sub'),
    });
    await cli.register({
      name: 'iso',
      spec: { backend: 'local', cwd: dirA },
      provider: 'cli',
      generation: 'i2',
      replace: true,
    });
    const r = await term({ command: 'pwd; echo "var=${ISO_VAR:-}"', execution_target: 'iso' });
    expect(r).toMatchObject({ generation: 'i2', output: `${dirA}\nvar=\n` });
    await until(() => !core.sessions.identities().includes('iso#i1'));
    expect(core.sessions.identities()).toContain('iso#i2');
  });

  it('drain refuses new calls and panes while a background command started before it keeps running', async () => {
    await cli.register({ name: 'dr', spec: { backend: 'local', cwd: dirA }, provider: 'cli', generation: 'd1' });
    const bg = await term({ command: 'sleep 0.8; echo bg-done', execution_target: 'dr', background: true });
    expect(bg.session_id).toBeTruthy();
    await cli.drain({ name: 'dr', provider: 'cli' });
    await expect(term({ command: 'true', execution_target: 'dr' })).rejects.toMatchObject({ code: 'target_draining' });
    await expect(
      core.invoke('pane.open', { execution_target: 'dr', cols: 80, rows: 24 }, asPerson),
    ).rejects.toMatchObject({ code: 'target_draining' });
    const waited = await core.callTool('process', { action: 'wait', session_id: bg.session_id, timeout: 5 }, 'test');
    expect(waited).toMatchObject({ status: 'exited', exit_code: 0 });
    expect(String(waited.output)).toContain('bg-done');
  });

  it(
    'after remove, a background process stays inspectable and killable by its identity, ' +
      'then the identity is released',
    async () => {
      await cli.register({ name: 'rm', spec: { backend: 'local', cwd: dirA }, provider: 'cli', generation: 'm1' });
      const bg = await term({ command: 'echo started; sleep 30', execution_target: 'rm', background: true });
      await cli.remove({ name: 'rm', provider: 'cli', generation: 'm1' });
      await expect(term({ command: 'true', execution_target: 'rm' })).rejects.toMatchObject({ code: 'unknown_target' });
      // A sweep runs on the change; the process still runs, so the identity stays.
      await new Promise((r) => setTimeout(r, 300));
      expect(core.sessions.identities()).toContain('rm#m1');
      const listed = await core.callTool('process', { action: 'list', execution_target: 'rm' }, 'test');
      expect(listed.processes).toEqual([
        expect.objectContaining({ session_id: bg.session_id, generation: 'm1', status: 'running' }),
      ]);
      const killed = await core.callTool('process', { action: 'kill', session_id: bg.session_id }, 'test');
      expect(killed).toMatchObject({ execution_target: 'rm', generation: 'm1' });
      await until(() => !core.sessions.identities().includes('rm#m1'));
    },
  );

  it("keeps a removed target's identity while a pane on it is open", async () => {
    await cli.register({ name: 'pn', spec: { backend: 'local', cwd: dirA }, provider: 'cli', generation: 'p1' });
    const pane = (await core.invoke('pane.open', { execution_target: 'pn', cols: 80, rows: 24 }, asPerson)) as {
      pane_id: string;
    };
    await cli.remove({ name: 'pn', provider: 'cli' });
    await new Promise((r) => setTimeout(r, 300));
    expect(core.sessions.identities()).toContain('pn#p1');
    await core.invoke('pane.close', { pane_id: pane.pane_id }, asPerson);
    await until(() => !core.sessions.identities().includes('pn#p1'), 35_000);
  }, 40_000);
});
