// Plugin backends through a real Core and real plugin host processes, in a temp SWITCHBOARD_HOME made here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../core.js';
import { builtinSpecs } from '../backends/index.js';
import type { BackendInfo } from '../../../shared/specFields.js';
import type { PluginFlags } from '../../../shared/plugins.js';
import { misbehave, writeTestPlugin } from './testPlugin.js';
import { asPerson } from '../platform/index.js';

const root = mkdtempSync(join(tmpdir(), 'sb-plugins-'));
const home = join(root, 'home');
const work = join(root, 'work');
const builtinName = builtinSpecs[0]!.backend;
let core: Core;
const backendEvents: BackendInfo[][] = [];

async function until(cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const term = (target: string, command: string, extra: Record<string, unknown> = {}) =>
  core.callTool('terminal', { command, execution_target: target, ...extra }, 'test');
const plugin = async (name: string) =>
  (
    (await core.invoke('plugins.list', {}, asPerson)) as Array<{
      name: string;
      state: string;
      problem?: string;
      enabled: boolean;
      backends: string[];
    }>
  ).find((p) => p.name === name);
const target = (name: string) => core.listTargets().find((t) => t.name === name);

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeTestPlugin(home, { name: 'alpha', flags: { supports_streams: true, strip_env_keys: ['SB_PLUGIN_SECRET_*'] } });
  writeTestPlugin(home, { name: 'beta', backends: ['alpha'] });
  writeTestPlugin(home, { name: 'claims_builtin', backends: [builtinName] });
  writeTestPlugin(home, { name: 'broken', throwOnLoad: true });
  writeTestPlugin(home, { name: 'boxed', flags: { is_container: true, default_cwd: work } });
  writeTestPlugin(home, { name: 'later' });
  writeTestPlugin(home, { name: 'unasked', flags: { is_container: true, supports_streams: true }, manifest: {} });
  writeTestPlugin(home, { name: 'faraway', flags: { is_remote: true } });
  writeTestPlugin(home, { name: 'typo_flags', flags: { supports_stream: true } as PluginFlags });
  writeFileSync(
    join(home, 'plugins', 'enabled.json'),
    JSON.stringify({
      enabled: ['alpha', 'beta', 'claims_builtin', 'broken', 'boxed', 'typo_flags', 'faraway', 'unasked'],
    }),
  );
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'approvals:',
      '  mode: ask',
      '  timeout: 2',
      'terminal:',
      '  default_target: a',
      '  targets:',
      `    a: { backend: alpha, cwd: ${work}, root: ${work} }`,
      `    box: { backend: boxed, cwd: ${work} }`,
      '    rooted: { backend: boxed }',
      `    bound: { backend: boxed, cwd: ${work}, root: ${work} }`,
      `    lying: { backend: unasked, cwd: ${work} }`,
      '    picky: { backend: alpha, root: /nonexistent }',
      `    far: { backend: faraway, cwd: ${work} }`,
      `    waiting: { backend: later, cwd: ${work}, anything: goes }`,
      '',
    ].join('\n'),
  );
  process.env.SB_PLUGIN_SECRET_X = 'hidden-by-strip';
  process.env.SB_PLUGIN_VISIBLE = 'seen';
  core = await new Core({ home }).start();
  core.onEvent((event, payload) => {
    if (event === 'backends.changed') backendEvents.push(payload as BackendInfo[]);
  });
}, 60_000);

afterAll(async () => {
  await core?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('plugin backends', () => {
  it(
    'loads an enabled plugin: its backend is listed with display name and plugin, ' +
      'and runs commands with the shell kit',
    async () => {
      const backends = (await core.invoke('backends.list', {})) as BackendInfo[];
      expect(backends.find((b) => b.backend === 'alpha')).toMatchObject({
        plugin: 'alpha',
        display_name: 'Test sandbox alpha',
        flags: { supports_streams: true, is_container: false },
      });
      expect((await plugin('alpha'))?.state).toBe('active');
      const r = await term('a', 'cd /tmp && export SB_T=1 && pwd');
      expect(r).toMatchObject({ exit_code: 0, cwd: '/tmp' });
      expect((await term('a', 'echo "$SB_T $(pwd)"')).output).toBe('1 /tmp\n');
    },
  );

  it('refuses a plugin claiming a built-in name; the built-in keeps working', async () => {
    const p = await plugin('claims_builtin');
    expect(p).toMatchObject({ state: 'refused' });
    expect(p?.problem).toMatch(new RegExp(`"${builtinName}" is a built-in`));
    const backends = (await core.invoke('backends.list', {})) as BackendInfo[];
    expect(backends.filter((b) => b.backend === builtinName)).toEqual([
      expect.not.objectContaining({ plugin: expect.anything() }),
    ]);
  });

  it('refuses the second plugin claiming a taken name; the first stays', async () => {
    expect(await plugin('beta')).toMatchObject({
      state: 'refused',
      problem: expect.stringContaining('already provided by plugin alpha'),
    });
    expect(((await core.invoke('backends.list', {})) as BackendInfo[]).find((b) => b.backend === 'alpha')?.plugin).toBe(
      'alpha',
    );
  });

  it('a plugin that throws on load is failed, with the reason; the Core goes on', async () => {
    expect(await plugin('broken')).toMatchObject({
      state: 'failed',
      problem: expect.stringContaining('register blew up on purpose'),
    });
    expect((await term('a', 'echo ok')).output).toBe('ok\n');
  });

  it('a declaration that does not fit the contract fails the load, saying where', async () => {
    expect(await plugin('typo_flags')).toMatchObject({
      state: 'failed',
      problem: 'failed to load: backend typo_flags: flags: unknown flag "supports_stream"',
    });
  });

  it('a config target of a plugin that is not enabled is unreachable, saying so', () => {
    expect(target('waiting')).toMatchObject({
      state: 'unreachable',
      problem: expect.stringContaining('plugin later is not enabled'),
    });
  });

  it('a throw in exec fails the call with one line naming the plugin', async () => {
    await expect(term('a', `echo ${misbehave.throw}`)).rejects.toThrow(
      /plugin alpha: exec failed: exec blew up on purpose/,
    );
    expect((await term('a', 'echo fine')).output).toBe('fine\n');
  });

  it('a hang hits the deadline: the call fails naming the plugin, and the host (still answering) serves the ' +
    'next one', async () => {
    await expect(term('a', `echo ${misbehave.hang}`, { timeout: 1 })).rejects.toThrow(
      /plugin alpha: exec gave no answer/,
    );
    await until(
      async () =>
        (await term('a', 'echo back').then(
          (r) => r.output,
          () => '',
        )) === 'back\n',
    );
  }, 60_000);

  it('process.exit in the plugin: the Core stays up, the call fails naming the plugin, ' +
    'the target is unreachable until the host is back', async () => {
    await expect(term('a', `echo ${misbehave.exit}`)).rejects.toThrow(/plugin alpha: its host exited with code 7/);
    await until(() => target('a')?.state === 'active' || target('a')?.state === 'unreachable');
    await until(
      async () =>
        (await term('a', 'echo again').then(
          (r) => r.output,
          () => '',
        )) === 'again\n',
    );
    await until(() => target('a')?.state === 'active');
  }, 60_000);

  it('stripped env keys never reach a plugin command; others do', async () => {
    const r = await term('a', 'echo "[$SB_PLUGIN_SECRET_X][$SB_PLUGIN_VISIBLE]"');
    expect(r.output).toBe('[][seen]\n');
  });

  it("a remote plugin's commands get only what a person passed through, not the Core's environment", async () => {
    expect((await term('far', 'echo "[$SB_PLUGIN_VISIBLE][$SB_PLUGIN_SECRET_X]"')).output).toBe('[][]\n');
  });

  it('files through the exec-based fallback', async () => {
    const file = join(work, 'f', 'x.txt');
    expect(
      await core.callTool('write_file', { path: file, content: 'hello plugin\n', execution_target: 'a' }, 'test'),
    ).toMatchObject({});
    expect(readFileSync(file, 'utf8')).toBe('hello plugin\n');
    const read = await core.callTool('read_file', { path: file, execution_target: 'a' }, 'test');
    expect(JSON.stringify(read)).toContain('hello plugin');
  });

  it('a container plugin skips asking for a dangerous command; a hardline one is still refused', async () => {
    mkdirSync(join(work, 'junk', 'deep'), { recursive: true });
    const r = await term('box', `rm -rf ${join(work, 'junk')}`);
    expect(r.exit_code).toBe(0);
    expect(core.approvals.list()).toEqual([]);
    await expect(term('box', 'rm -rf /')).rejects.toThrow(/never run, in any approvals mode/);
    // The same dangerous command on a plugin target that is no container is asked about (and denied on silence).
    mkdirSync(join(work, 'junk2'), { recursive: true });
    const asked = term('a', `rm -rf ${join(work, 'junk2')}`);
    await until(() => core.approvals.list().length === 1);
    await expect(asked).rejects.toThrow(/denied|no answer|timed out/i);
  });

  it(
    'holds a backend to its manifest, and never skips asking on ' + 'a target that names a writable host path',
    async () => {
      // The module says "container" (and streams); its plugin.yaml asked for neither, and the person saw that.
      expect(target('lying')?.flags).toMatchObject({
        is_container: true,
        skip_container_guards: false,
        supports_streams: false,
      });
      expect(await plugin('unasked')).toMatchObject({ state: 'active', flags: {} });
      expect(await plugin('boxed')).toMatchObject({ flags: { is_container: true } });
      // A container target whose spec names a folder of this machine (its `root`) asks, whatever the plugin says.
      expect(target('box')?.flags?.skip_container_guards).toBe(true);
      expect(target('bound')?.flags?.skip_container_guards).toBe(false);
      mkdirSync(join(work, 'junk3'), { recursive: true });
      const asked = term('bound', `rm -rf ${join(work, 'junk3')}`);
      await until(() => core.approvals.list().length === 1);
      await expect(asked).rejects.toThrow(/denied|no answer|timed out/i);
      expect(existsSync(join(work, 'junk3'))).toBe(true);
    },
  );

  it('a background process on a streaming plugin: output and stdin cross the host', async () => {
    const started = (await term('a', 'read line; echo "got $line"', { background: true })) as { session_id?: string };
    expect(started.session_id).toBeTruthy();
    await core.callTool(
      'process',
      { action: 'write', session_id: started.session_id, data: 'hello-bg\n', execution_target: 'a' },
      'test',
    );
    const waited = await core.callTool(
      'process',
      { action: 'wait', session_id: started.session_id, timeout: 20, execution_target: 'a' },
      'test',
    );
    expect(JSON.stringify(waited)).toContain('got hello-bg');
  }, 30_000);

  it('a backend without spawn_background says so for a background command', async () => {
    await expect(term('box', 'sleep 1', { background: true })).rejects.toThrow(
      /no background processes on this backend/,
    );
  });

  it('a target with no cwd starts where the backend says (default_cwd)', async () => {
    expect((await term('rooted', 'pwd')).output).toBe(`${work}\n`);
  });

  it('a pane on a streaming plugin: keys in, output out, through the host', async () => {
    let text = '';
    const off = core.onEvent((event, payload) => {
      // The Core's batch is the pty's bytes (connections decode it for JSON clients).
      if (event === 'pane.data') text += Buffer.from((payload as { data: Uint8Array }).data).toString();
    });
    try {
      const pane = (await core.invoke('pane.open', { execution_target: 'a', cols: 80, rows: 24 }, asPerson)) as {
        pane_id: string;
      };
      await core.invoke('pane.write', { pane_id: pane.pane_id, data: 'echo pane-$((20+22))\n' }, asPerson);
      await until(() => text.includes('pane-42'));
      await core.invoke('pane.close', { pane_id: pane.pane_id }, asPerson);
    } finally {
      off();
    }
  }, 30_000);

  it('panes only where the backend streams', async () => {
    await expect(core.invoke('pane.open', { execution_target: 'box', cols: 80, rows: 24 }, asPerson)).rejects.toThrow(
      /no interactive shell on this backend/,
    );
  });

  it('hot enable and disable through the running Core emit backends.changed and change the targets', async () => {
    backendEvents.length = 0;
    expect(await core.invoke('plugins.enable', { name: 'later' }, asPerson)).toMatchObject({
      state: 'active',
      enabled: true,
    });
    await until(() => backendEvents.some((list) => list.some((b) => b.backend === 'later')));
    await until(() => target('waiting')?.state === 'active');
    expect(JSON.parse(readFileSync(join(home, 'plugins', 'enabled.json'), 'utf8')).enabled).toContain('later');
    await core.invoke('plugins.disable', { name: 'later' }, asPerson);
    await until(() => backendEvents.at(-1)?.every((b) => b.backend !== 'later') ?? false);
    await until(() => target('waiting')?.state === 'unreachable');
    await expect(core.invoke('plugins.enable', { name: 'latter' }, asPerson)).rejects.toThrow(
      /no plugin named "latter" — did you mean "later"\?/,
    );
    // Each is a person's action in audit.jsonl, saying how the person was known (asPerson: as the window is).
    await core.audit.flush();
    const lines = readFileSync(join(home, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => String(l.tool).startsWith('plugins.'))
      .map(({ tool, args, outcome, person, kind }) => ({ tool, args, outcome, person, kind }));
    expect(lines).toEqual([
      { kind: 'action', tool: 'plugins.enable', args: 'enable later', outcome: 'ok', person: 'window' },
      { kind: 'action', tool: 'plugins.disable', args: 'disable later', outcome: 'ok', person: 'window' },
      { kind: 'action', tool: 'plugins.enable', args: 'enable latter', outcome: 'error', person: 'window' },
    ]);
  }, 60_000);

  it('a config target with a key its plugin does not declare is named, with a did-you-mean', async () => {
    await core.invoke('plugins.enable', { name: 'later' }, asPerson);
    expect(core.targets.problems().join('\n')).toMatch(/unknown key "anything" in target "waiting"/);
    await core.invoke('plugins.disable', { name: 'later' }, asPerson);
  }, 60_000);

  it('doctor lists each plugin with version, state, requirements and its checks', async () => {
    const r = (await core.invoke('doctor.run', { timeout_ms: 10_000 })) as {
      plugins: Array<{
        name: string;
        version?: string;
        state: string;
        checks: Array<{ name: string; ok: boolean }>;
        available?: boolean;
        requirements: string[];
      }>;
    };
    expect(r.plugins.find((p) => p.name === 'alpha')).toMatchObject({
      version: '1.0.0',
      state: 'active',
      available: true,
      checks: [{ name: 'alpha: sh', ok: true }],
      requirements: ['target picky: root /nonexistent does not exist'],
    });
    expect(r.plugins.find((p) => p.name === 'claims_builtin')?.state).toBe('refused');
  }, 30_000);
});
