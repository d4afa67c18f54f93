// The bwrap example plugin called directly: a real bubblewrap sandbox — read-only root, a workspace per identity, no
// network, panes on a pty.
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PluginBackendProvider, PluginEnvironment, PluginStream } from '../../../src/shared/plugins.js';
import { loadPlugin, type LoadedPlugin } from '../testContext.js';

const here = dirname(fileURLToPath(import.meta.url));
let plugin: LoadedPlugin;
let bwrap: PluginBackendProvider;
const envs: PluginEnvironment[] = [];

async function env(identity: string, spec: Record<string, unknown> = {}): Promise<PluginEnvironment> {
  const e = await bwrap.create_environment({
    cwd: '/workspace',
    timeout: 60,
    runtime_identity: identity,
    spec: { backend: 'bwrap', ...spec },
    secrets: {},
  });
  envs.push(e);
  return e;
}

const run = (
  e: PluginEnvironment,
  command: string,
  opts: { cwd?: string; stdin?: string; timeout_ms?: number; env?: Record<string, string> } = {},
) =>
  e.exec(command, {
    cwd: opts.cwd ?? '/workspace',
    timeout_ms: opts.timeout_ms ?? 30_000,
    ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  });

/** Collects a stream's output until `done` says so (or it exits). */
function until(stream: PluginStream, done: (out: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    stream.on_data((d) => {
      out += d;
      if (done(out)) resolve(out);
    });
    stream.on_exit((code) =>
      done(out)
        ? resolve(out)
        : reject(new Error(`stream exited (${code}) before it said what was awaited; output: ${out}`)),
    );
  });
}

beforeAll(async () => {
  // Not under /tmp (private in every sandbox): the data folder must be hidden by the plugin itself.
  plugin = await loadPlugin(here, join(here, '../../../.test-env'));
  expect(plugin.providers.map((p) => p.name)).toEqual(['bwrap']);
  bwrap = plugin.providers[0]!;
});

afterAll(async () => {
  for (const e of envs) await e.cleanup?.('shutdown');
  plugin.dispose();
});

describe('bwrap plugin', () => {
  it('declares a container backend with streams and a pty, and is available here', async () => {
    expect(plugin.manifest).toMatchObject({ name: 'bwrap', kind: 'backend', entry: 'index.mjs' });
    expect(bwrap.display_name).toBe('Bubblewrap sandbox');
    expect(bwrap.flags).toMatchObject({
      is_container: true,
      supports_streams: true,
      supports_pty: true,
      default_cwd: '/workspace',
    });
    expect(bwrap.fields?.map((f) => f.key)).toEqual(['binds', 'share_network']);
    expect(await bwrap.is_available?.()).toBe(true);
    const checks = await bwrap.doctor_checks!();
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks.map((c) => c.name)).toContain('can create a sandbox');
  });

  it('asks for what it declares in its manifest, and keeps asking for a target that binds host folders', async () => {
    expect(plugin.manifest.flags).toEqual({ is_container: true, supports_streams: true, supports_pty: true });
    expect(await bwrap.flags_for!({ backend: 'bwrap' })).toEqual({ skip_container_guards: true });
    expect(await bwrap.flags_for!({ backend: 'bwrap', share_network: true })).toEqual({ skip_container_guards: true });
    expect(await bwrap.flags_for!({ backend: 'bwrap', binds: ['/home/me/project:/project'] })).toEqual({
      skip_container_guards: false,
    });
  });

  it(
    'runs a command in its cwd with exit code, stdin and env; ' + 'the root is read-only, the workspace writable',
    async () => {
      const e = await env('ro#1');
      expect(await e.home!()).toBe('/workspace');
      const r = await run(e, 'pwd; echo "$GREETING"; cat; exit 3', {
        stdin: 'from stdin\n',
        env: { GREETING: 'hello' },
      });
      expect(r).toMatchObject({ exit_code: 3, output: '/workspace\nhello\nfrom stdin\n' });
      expect((await run(e, 'mkdir -p sub && cd sub && pwd')).output).toBe('/workspace/sub\n');
      expect((await run(e, 'pwd', { cwd: '/workspace/sub' })).output).toBe('/workspace/sub\n');
      const ro = await run(e, 'touch /usr/sb-test 2>&1; touch /etc/sb-test 2>&1; touch /sb-test 2>&1; echo done');
      expect(ro.output.match(/Read-only file system/g)).toHaveLength(3);
      expect(existsSync('/usr/sb-test') || existsSync('/etc/sb-test')).toBe(false);
      // The host's own environment (this test's variables) is not handed in.
      process.env.SB_BWRAP_LEAK = 'leaked';
      expect((await run(e, 'echo "[$SB_BWRAP_LEAK]"')).output).toBe('[]\n');
      delete process.env.SB_BWRAP_LEAK;
    },
  );

  it(
    'keeps a workspace and /tmp per runtime identity, ' + 'hides the others, and removes them on cleanup(removed)',
    async () => {
      const a = await env('iso#1');
      const b = await env('iso#2');
      await run(a, 'echo mine > /workspace/note; echo t > /tmp/t');
      expect((await run(a, 'cat /workspace/note /tmp/t')).output).toBe('mine\nt\n');
      expect((await run(b, 'cat /workspace/note /tmp/t 2>&1; ls -A /workspace')).output).not.toContain('mine');
      // The folder that holds every identity's workspace is empty from inside any sandbox.
      const sandboxes = join(plugin.dataDir, 'sandboxes');
      expect(readdirSync(sandboxes).length).toBeGreaterThanOrEqual(2);
      expect((await run(b, `ls -A ${sandboxes} 2>/dev/null | wc -l`)).output.trim()).toBe('0');
      const before = readdirSync(sandboxes).length;
      await a.cleanup!('removed');
      expect(readdirSync(sandboxes).length).toBe(before - 1);
      expect((await run(b, 'echo still here')).output).toBe('still here\n');
    },
  );

  it('has no network unless share_network; the host loopback is out of reach', async () => {
    const server: Server = createServer((s) => s.end('hello from the host\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3 || echo no-connection`;
    try {
      const closed = await env('net#1');
      expect((await run(closed, `bash -c '${probe}' 2>/dev/null`)).output).toContain('no-connection');
      expect((await run(closed, 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "')).output).toBe('lo\n');
      const open = await env('net#2', { share_network: true });
      expect((await run(open, `bash -c '${probe}'`)).output).toContain('hello from the host');
    } finally {
      server.close();
    }
  });

  it('binds a host folder read-write where the spec says, and checks binds', async () => {
    const host = mkdtempSync(join(tmpdir(), 'sb-bwrap-bind-'));
    try {
      writeFileSync(join(host, 'in.txt'), 'from host\n');
      const e = await env('bind#1', { binds: [`${host}:/project`] });
      expect((await run(e, 'cat in.txt && echo back > out.txt', { cwd: '/project' })).output).toBe('from host\n');
      expect(readFileSync(join(host, 'out.txt'), 'utf8')).toBe('back\n');
      expect(await bwrap.check_requirements!({ backend: 'bwrap', binds: [`${host}:/project`] })).toEqual([]);
      const problems = await bwrap.check_requirements!({
        backend: 'bwrap',
        binds: ['relative/path', '/nonexistent-sb-path', `${host}:/proc`],
      });
      expect(problems).toHaveLength(3);
      expect(problems[1]).toContain('does not exist');
    } finally {
      rmSync(host, { recursive: true, force: true });
    }
  });

  it('ends a command at its deadline and says it timed out', async () => {
    const e = await env('timeout#1');
    const r = await run(e, 'echo started; sleep 47.31; echo never', { timeout_ms: 1000 });
    expect(r).toMatchObject({ timed_out: true, exit_code: 124 });
    expect(r.output).toBe('started\n');
    expect(spawnSync('pgrep', ['-f', 'sleep 47\\.31']).status).toBe(1);
  });

  it('runs a background process with stdin, and a pane shell on a real pty that resizes', async () => {
    const e = await env('streams#1');
    const bg = await e.spawn_background!('read line; echo "got $line"; exit 5', { cwd: '/workspace' });
    const exit = new Promise<number | null>((r) => bg.on_exit((c) => r(c)));
    const out = until(bg, (o) => o.includes('got hello'));
    bg.write('hello\n');
    expect(await out).toBe('got hello\n');
    expect(await exit).toBe(5);

    const sh = await e.open_shell!({ cwd: '/workspace', cols: 100, rows: 30 });
    const first = until(sh, (o) => o.includes('size=30 100'));
    sh.write('[ -t 0 ] && echo on-a-tty; echo marker-$((6*7)); echo size=$(stty size)\r');
    const shown = await first;
    expect(shown).toContain('on-a-tty');
    expect(shown).toContain('marker-42');
    sh.resize!(120, 40);
    const resized = until(sh, (o) => o.includes('size=40 120'));
    sh.write('echo size=$(stty size)\r');
    await resized;
    const gone = new Promise<number | null>((r) => sh.on_exit((c) => r(c)));
    sh.write('exit 0\r');
    expect(await gone).toBe(0);
  });

  it('probes the sandbox', async () => {
    const e = await env('probe#1');
    expect(await e.probe!()).toMatchObject({ ok: true });
  });
});
