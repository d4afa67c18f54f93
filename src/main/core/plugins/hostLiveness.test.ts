// A plugin host that stops answering (SIGSTOP, a plugin spinning on its event loop) is found by its heartbeat, killed
// and restarted, and its calls fail at once naming the plugin; a slow but live plugin is left alone. A real Core and
// real host processes, in a temp SWITCHBOARD_HOME made here.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../core.js';
import { asPerson } from '../platform/index.js';
import type { ProcessInfo } from '../../../shared/api.js';
import { execMarginMs } from './pluginEnvironment.js';
import { misbehave, writeTestPlugin } from './testPlugin.js';

const root = mkdtempSync(join(tmpdir(), 'sb-liveness-'));
const home = join(root, 'home');
const work = join(root, 'work');
let core: Core;
/** Hosts this file stopped: each is killed at the end, whatever happened. */
const stopped: number[] = [];
/** The stopped call's own timeout: before the heartbeat, it failed only at its deadline (this + the margin). */
const callTimeoutSec = 90;
/** What proves the heartbeat found it: well under the old hang, with room for a loaded machine. */
const detectBoundMs = 15_000;

async function until(cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const term = (command: string, extra: Record<string, unknown> = {}) =>
  core.callTool('terminal', { command, execution_target: 'box', ...extra }, 'test');
const host = () => core.plugins.hostOf('acmebox');
const hostPid = (): number => {
  const pid = host()?.pid;
  if (pid === undefined) throw new Error('no acmebox host runs');
  return pid;
};
const hostLog = (): string => readFileSync(join(home, 'plugins', '.host.log'), 'utf8');
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pids in process group `pgid`. */
const group = (pgid: number): number[] =>
  execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, g]) => g === pgid)
    .map(([pid]) => pid!);

/** Wait for a host other than `old` to serve the target again; returns its pid. */
async function restartedFrom(old: number): Promise<number> {
  await until(
    async () =>
      (await term('echo back').then(
        (r) => r.output,
        () => '',
      )) === 'back\n',
  );
  const pid = hostPid();
  expect(pid).not.toBe(old);
  await until(() => !alive(old));
  return pid;
}

/** A call that fails: how long it took, and its message. */
async function failure(call: Promise<unknown>): Promise<{ ms: number; message: string }> {
  const started = Date.now();
  const outcome = await call.then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  if (outcome === undefined) throw new Error('the call succeeded');
  return { ms: Date.now() - started, message: outcome };
}

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeTestPlugin(home, { name: 'acmebox', flags: { supports_streams: true } });
  writeFileSync(join(home, 'plugins', 'enabled.json'), JSON.stringify({ enabled: ['acmebox'] }));
  writeFileSync(
    join(home, 'config.yaml'),
    ['terminal:', '  default_target: box', '  targets:', `    box: { backend: acmebox, cwd: ${work} }`, ''].join('\n'),
  );
  core = await new Core({ home }).start();
  await until(
    async () =>
      (await term('echo up').then(
        (r) => r.output,
        () => '',
      )) === 'up\n',
  );
}, 60_000);

afterAll(async () => {
  for (const pid of stopped) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await core?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('plugin host liveness', () => {
  // Each case takes a host down once or more; three in five minutes and it would not come back by itself (pluginHost.ts
  // restartLimit). A person's restart before each case gives it a new host and a crash count from zero.
  beforeEach(async () => {
    await core.invoke('plugins.restart', { name: 'acmebox' }, asPerson);
    // The target's environment is made on the new host before the case starts, as it was before the restart.
    expect((await term('echo ready')).output).toBe('ready\n');
  });

  it('a host stopped mid-call: the call fails at once naming the plugin, the host is restarted, ' +
    'the target works again', async () => {
    const marker = join(work, 'started');
    const call = term(`touch ${marker}; sleep 60`, { timeout: callTimeoutSec });
    await until(() => existsSync(marker));
    const old = hostPid();
    expect(host()?.heartbeating).toBe(true);
    process.kill(old, 'SIGSTOP');
    stopped.push(old);
    const { ms, message } = await failure(call);
    console.log(
      `a call on a stopped plugin host failed after ${(ms / 1000).toFixed(1)} s (without the heartbeat: ` +
        `at its deadline, ${callTimeoutSec + execMarginMs / 1000} s)`,
    );
    expect(message).toMatch(
      /^plugin acmebox: its host stopped answering \(no heartbeat for 3s\) during exec; it is being restarted$/,
    );
    expect(ms).toBeLessThan(detectBoundMs);
    await restartedFrom(old);
    // The plugin's author finds it in the log beside the plugin's own lines.
    expect(hostLog()).toContain('acmebox: its host stopped answering (no heartbeat for 3s); killed; restarting');
  }, 90_000);

  it("a plugin spinning on the host's event loop is found the same way, " +
    'and what it started in its group dies with it', async () => {
    const old = hostPid();
    const call = failure(term(`echo ${misbehave.spin}`, { timeout: 90 }));
    await until(() => group(old).some((pid) => pid !== old));
    const { ms, message } = await call;
    expect(message).toMatch(/^plugin acmebox: its host stopped answering .* during exec; it is being restarted$/);
    expect(ms).toBeLessThan(detectBoundMs);
    await restartedFrom(old);
    await until(() => group(old).length === 0);
  }, 90_000);

  it('a host stopped while idle is found by the next call on its target', async () => {
    await until(() => host()?.heartbeating === false);
    const old = hostPid();
    process.kill(old, 'SIGSTOP');
    stopped.push(old);
    const { ms, message } = await failure(term('echo hello'));
    expect(message).toMatch(/^plugin acmebox: its host stopped answering .* during exec; it is being restarted$/);
    expect(ms).toBeLessThan(detectBoundMs);
    await restartedFrom(old);
  }, 90_000);

  it('a long exec on a live host is not killed by the heartbeat, ' +
    'and the heartbeat stops when nothing waits', async () => {
    const pid = hostPid();
    const r = await term('sleep 5; echo slept', { timeout: 10 });
    expect(r).toMatchObject({ exit_code: 0, output: 'slept\n' });
    expect(hostPid()).toBe(pid);
    // Idle, the Core sends the host nothing: no timer wakes the machine for a plugin nobody uses.
    await until(() => host()?.heartbeating === false);
  }, 60_000);

  it('an exec past its timeout plus the margin fails on its own deadline when the plugin never answers; ' +
    'the live host stays', async () => {
    const pid = hostPid();
    const { message } = await failure(term(`echo ${misbehave.hang}`, { timeout: 1 }));
    expect(message).toMatch(/^plugin acmebox: exec gave no answer within 11s$/);
    expect(hostPid()).toBe(pid);
    expect(hostLog()).toContain(
      'acmebox: exec gave no answer within 11s (its host still answers; the call was failed)',
    );
    expect((await term('echo still')).output).toBe('still\n');
  }, 60_000);

  it('a background process held by a host that stopped answering is lost, and its status says why', async () => {
    const started = (await term('sleep 20', { background: true })) as { session_id: string };
    const old = hostPid();
    process.kill(old, 'SIGSTOP');
    stopped.push(old);
    const info = async () =>
      ((await core.invoke('processes.list', {}, asPerson)) as ProcessInfo[]).find(
        (p) => p.session_id === started.session_id,
      );
    await until(async () => (await info())?.status === 'lost', detectBoundMs);
    expect((await info())?.reason).toMatch(/^lost with its plugin host \(plugin acmebox: its host stopped answering/);
    await restartedFrom(old);
  }, 90_000);
});
