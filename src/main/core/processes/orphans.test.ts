// Work never outlives the Core unnoticed: a clean stop ends what it started, and after a kill -9 the next Core ends
// what the dead one left, on the local machine at start and on SSH and Docker targets when it first reaches them.
// The sshd and the containers run on this machine, so pgrep here sees the processes of all three backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDockerEnv, loadSshEnv } from '../../../../scripts/testEnv.js';
import { cliPath, ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../../scripts/cliHarness.js';
import { sleepRunning, sleepSeconds, until } from '../../../../scripts/sleepProbe.js';
import { connectCore } from '../../transport/wsLink.js';

const ssh = loadSshEnv();
const docker = loadDockerEnv();
const home = tempHome('sb-orphans-');
const work = join(home, 'work');

const uniqueSleep = sleepSeconds(5000, '24');
const running = sleepRunning;

/** A foreground call that would run for a long time; the CLI process is left to die with its Core. */
function longCall(target: string, seconds: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      cliPath,
      'call',
      'terminal',
      JSON.stringify({ command: `sleep ${seconds}`, timeout: 3600, execution_target: target }),
    ],
    {
      env: { ...process.env, SWITCHBOARD_HOME: home },
      stdio: 'ignore',
    },
  );
}

async function background(target: string, seconds: string): Promise<void> {
  const r = await runCli(home, [
    'call',
    'terminal',
    JSON.stringify({ command: `sleep ${seconds}`, background: true, execution_target: target }),
  ]);
  expect(r.status, r.stderr).toBe(0);
}

const targets = ['here', ...(ssh ? ['box'] : []), ...(docker ? ['jail'] : [])];

beforeAll(() => {
  ensureBuilt();
  mkdirSync(work);
  // `here` runs unsandboxed: what a dead Core left there must be found and ended. `boxed` is sandboxed: its work dies
  // with its Core (bubblewrap's --die-with-parent), nothing left to sweep.
  const lines = [
    'terminal:',
    '  targets:',
    `    here: { backend: local, cwd: ${work}, sandbox: off }`,
    `    boxed: { backend: local, cwd: ${work} }`,
  ];
  if (ssh) {
    lines.push(
      `    box: { backend: ssh, ssh_host: ${ssh.host}, ssh_port: ${ssh.port}, ssh_user: ${ssh.user}, ` +
        // Unsandboxed: sandboxed work over SSH ends with its connection, as 'boxed' here does with its Core.
        `ssh_key: ${ssh.key}, cwd: /tmp, sandbox: off }`,
    );
    writeFileSync(join(home, 'known_hosts'), `${ssh.knownHostsLine}\n`, { mode: 0o600 });
  }
  if (docker)
    lines.push(
      `    jail: { backend: docker, docker_image: "${docker.image}", docker_host: "unix://${docker.socket}", ` +
        `docker_network: none, cwd: / }`,
    );
  writeFileSync(join(home, 'config.yaml'), `${lines.join('\n')}\n`);
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

describe(`work never outlives the Core (${targets.join(', ')})`, () => {
  let served: Served | undefined;
  afterAll(async () => {
    await served?.stop();
  });

  it('a clean stop ends foreground calls and background processes on every target', async () => {
    served = await startServe(home);
    const sleeps = targets.map((t) => {
      const fg = uniqueSleep();
      const bg = uniqueSleep();
      return { t, fg, bg, call: longCall(t, fg) };
    });
    for (const s of sleeps) await background(s.t, s.bg);
    // A background process on a runtime target that was removed while it ran is ended too.
    const gone = uniqueSleep();
    expect((await runCli(home, ['targets', 'register', 'brief', '--backend', 'local', '--cwd', work])).status).toBe(0);
    await background('brief', gone);
    expect((await runCli(home, ['targets', 'remove', 'brief'])).status).toBe(0);
    for (const s of sleeps) await until(() => running(s.fg) && running(s.bg), `${s.t}: both sleeps started`);
    expect(running(gone)).toBe(true);
    // As a window does: save the layout (the profile store it loads hooks process exit and signals).
    const core = JSON.parse(readFileSync(join(home, 'core.json'), 'utf8')) as { ws_url: string; token: string };
    const { client, close } = await connectCore(core.ws_url, core.token, undefined, served!.approver);
    await client.call('workspace.save', { tabs: [{ panes: [{ target: 'here' }] }], active_tab: 0 });
    close();
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      served!.child.once('exit', (code, signal) => resolve([code, signal])),
    );
    await served.stop();
    served = undefined;
    // It ended itself after cleaning up, not by the signal's default action.
    expect(await exited).toEqual([0, null]);
    for (const s of sleeps)
      await until(() => !running(s.fg) && !running(s.bg), `${s.t}: both sleeps ended with the Core`);
    await until(() => !running(gone), "the removed target's process ended with the Core");
  });

  it("a clean stop ends a pane's shell, even one deaf to the hangup that closing sends first", async () => {
    served = await startServe(home);
    const core = JSON.parse(readFileSync(join(home, 'core.json'), 'utf8')) as { ws_url: string; token: string };
    const { client, close } = await connectCore(core.ws_url, core.token, undefined, served!.approver);
    const { pane_id } = await client.call('pane.open', { execution_target: 'here', cols: 80, rows: 24 });
    // The pane's shell becomes a process that ignores SIGHUP, under a name to look for once it does.
    const name = `sb-deaf-${process.pid}`;
    // (The name is put together inside, so no command line shows it before the trap is set.)
    await client.call('pane.write', {
      pane_id,
      data: `exec bash --norc -c "trap '' HUP; n=sb-deaf; exec -a \\$n-${process.pid} sleep 2937"\r`,
    });
    const deaf = (): boolean => spawnSync('pgrep', ['-f', name], { encoding: 'utf8' }).stdout.trim() !== '';
    await until(deaf, "the pane's shell ignores SIGHUP");
    close();
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      served!.child.once('exit', (code, signal) => resolve([code, signal])),
    );
    await served.stop();
    served = undefined;
    expect(await exited).toEqual([0, null]);
    expect(deaf()).toBe(false);
  });

  it('after kill -9, the next Core ends what the dead one left: at start here, on first reach elsewhere', async () => {
    served = await startServe(home);
    const sleeps = targets.map((t) => ({ t, fg: uniqueSleep(), bg: uniqueSleep() }));
    const calls = sleeps.map((s) => longCall(s.t, s.fg));
    for (const s of sleeps) await background(s.t, s.bg);
    const boxed = { fg: uniqueSleep(), bg: uniqueSleep() };
    const boxedCall = longCall('boxed', boxed.fg);
    await background('boxed', boxed.bg);
    for (const s of [...sleeps, { t: 'boxed', ...boxed }])
      await until(() => running(s.fg) && running(s.bg), `${s.t}: both sleeps started`);
    served.child.kill('SIGKILL');
    await new Promise((r) => served!.child.once('exit', r));
    for (const c of [...calls, boxedCall]) c.kill();
    served = undefined;
    rmSync(join(home, 'core.json'), { force: true });
    // Nobody tracks them now: they are still running — but sandboxed work died with its Core.
    for (const s of sleeps) expect(running(s.fg) && running(s.bg)).toBe(true);
    await until(() => !running(boxed.fg) && !running(boxed.bg), 'the sandboxed sleeps died with their Core');

    served = await startServe(home);
    const here = sleeps.find((s) => s.t === 'here')!;
    await until(() => !running(here.fg) && !running(here.bg), 'the local orphans were ended at start');
    for (const s of sleeps.filter((x) => x.t !== 'here')) {
      // The first call that reaches the target sweeps it, and the call itself works.
      const r = await runCli(home, [
        'call',
        'terminal',
        JSON.stringify({ command: 'echo reached', execution_target: s.t }),
      ]);
      expect(r.stdout).toBe('reached\n');
      await until(() => !running(s.fg) && !running(s.bg), `${s.t}: the orphans were ended on first reach`);
    }
    type Line = { kind: string; count?: number; outcome: string; execution_target?: string };
    const auditSweeps = (): Line[] =>
      readFileSync(join(home, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line)
        .filter((l) => l.kind === 'sweep');
    // The containers the dead Core made running are stopped at start, one line per engine's container (docker only).
    const sweepLines = (): Line[] => auditSweeps().filter((l) => !l.execution_target?.startsWith('containers on '));
    if (docker)
      await until(
        () => auditSweeps().some((l) => l.execution_target?.startsWith('containers on ')),
        "the dead Core's container was stopped",
      );
    // One line per place swept (written when its sweep is done). A docker exec whose client went away may already
    // have ended its command by then: that sweep finds nothing.
    await until(() => sweepLines().length === targets.length, 'a sweep line per target');
    const lines = sweepLines();
    expect(lines, JSON.stringify(lines)).toHaveLength(targets.length);
    expect(lines.every((l) => l.outcome === 'ended' || l.outcome === 'none')).toBe(true);
    expect(lines.filter((l) => l.outcome === 'ended').length).toBeGreaterThanOrEqual(Math.min(2, targets.length));
  });
});
