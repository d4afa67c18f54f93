// Every path that ends a local shell ends it gently (HUP and TERM first, KILL only after the grace), on the host and
// in the sandbox: a command that traps the gentle signals gets to run its trap; one that ignores them still ends.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment, ExecOptions, TargetSnapshot } from '../backends/index.js';
import { localProvider } from '../backends/providers.js';
import type { SandboxSetting } from '../../../shared/specFields.js';
import { sandboxAvailability } from '../sandbox/index.js';
import { sleepRunning, sleepSeconds, until } from '../../../../scripts/sleepProbe.js';
import { endGroupScript, endsSettled, groupHasLiveMember } from './endGently.js';
import { groupAlive } from './processAlive.js';

const nextSleep = sleepSeconds(23000, '26');
const home = mkdtempSync(join(tmpdir(), 'sb-gentle-'));
const work = mkdtempSync(join(tmpdir(), 'sb-gentle-work-'));
const opened: Environment[] = [];

const envFor = (name: string, sandbox: SandboxSetting): Environment => {
  const snapshot: TargetSnapshot = {
    name,
    generation: 'g',
    identity: `${name}#g`,
    source: 'config',
    state: 'active',
    spec: { backend: 'local', cwd: work, sandbox },
    flags: localProvider.flags,
    timeoutSec: 10,
  };
  const env = localProvider.createEnvironment(snapshot, { home, resolveSpec: () => undefined });
  opened.push(env);
  return env;
};
const opts = (extra: Partial<ExecOptions> = {}): ExecOptions => ({
  cwd: work,
  timeoutMs: 20_000,
  maxOutputChars: 100_000,
  ...extra,
});

/**
 * A command that writes the first gentle signal it got to `marker` (deaf to the next), cleans up for a moment (as an
 * rc file letting go of a lock would), says so and exits; `seconds` names its sleep for pgrep.
 */
const trapping = (marker: string, seconds: string): string =>
  ['HUP', 'TERM']
    .map(
      (sig) => `trap 'trap "" HUP TERM; echo ${sig} >> ${marker}; sleep 0.3; echo cleaned >> ${marker}; exit 0' ${sig}`,
    )
    .join('; ') + `; sleep ${seconds} & wait`;
/** A command deaf to both gentle signals (its sleep inherits the ignoring). */
const deaf = (seconds: string): string => `trap '' HUP TERM; sleep ${seconds}`;
const lines = (path: string): string[] =>
  existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
const firstLine = (path: string): string => lines(path)[0] ?? '';
/** The trap got a gentle signal first and had its time: it finished its cleanup (another trap may have run inside). */
const endedGently = (path: string): boolean =>
  ['HUP', 'TERM'].includes(firstLine(path)) && lines(path).at(-1) === 'cleaned';

afterAll(async () => {
  await Promise.all(opened.map((e) => e.cleanup('removed')));
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const sandboxed = sandboxAvailability();
const kinds: Array<[string, SandboxSetting]> = [['unsandboxed', 'off']];
if (sandboxed.ok && sandboxed.kind === 'bubblewrap') kinds.push(['sandboxed', { mode: 'workspace' }]);

describe.each(kinds)('ending a shell gently (local, %s)', (kind, setting) => {
  const env = envFor(`gentle-${kind}`, setting);

  it.each([
    ['a warm shell', {}],
    ['a shell of its own', { stdin: '' }],
  ])('a timeout in %s sends HUP/TERM first: the trap runs', async (_path, extra) => {
    const marker = join(work, `timeout-${kind}-${Object.keys(extra).length}`);
    const s = nextSleep();
    const r = await env.exec(trapping(marker, s), opts({ timeoutMs: 1000, ...extra }));
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    await until(() => !sleepRunning(s), 'the trapping command ended');
    await endsSettled();
    expect(endedGently(marker), lines(marker).join(' ')).toBe(true);
  });

  it(
    'a command that ignores HUP and TERM still ends after the grace; the call is answered before that, ' +
      'the stop waits',
    async () => {
      const s = nextSleep();
      const r = await env.exec(deaf(s), opts({ timeoutMs: 1000 }));
      expect(r).toMatchObject({ exitCode: 124, timedOut: true });
      // Answered while the command still had its grace (it ignores the gentle signals, so it was still there)...
      expect(sleepRunning(s)).toBe(true);
      // ...and what the Core's stop waits for ends only once it is gone.
      await endsSettled();
      expect(sleepRunning(s)).toBe(false);
    },
  );

  it(
    'cleanup (a retired identity, the Core stopping) ends what a call left running gently, ' + 'and a running call too',
    async () => {
      const env2 = envFor(`gentle-cleanup-${kind}`, setting);
      const left = join(work, `left-${kind}`);
      const running = join(work, `running-${kind}`);
      const s1 = nextSleep();
      const s2 = nextSleep();
      // A call that leaves a trapping job behind retires its warm shell; another call is still running at cleanup.
      await env2.exec(`(${trapping(left, s1)}) > /dev/null 2>&1 &`, opts());
      await until(() => sleepRunning(s1), 'the job left running started');
      const call = env2.exec(trapping(running, s2), opts());
      await until(() => sleepRunning(s2), 'the running call started');
      await env2.cleanup('idle');
      await call.catch(() => undefined);
      await endsSettled();
      expect([lines(left), lines(running)].map((l) => l.join(' '))).toEqual([
        expect.stringMatching(/^(HUP|TERM) .*cleaned$/),
        expect.stringMatching(/^(HUP|TERM) .*cleaned$/),
      ]);
      expect(sleepRunning(s1) || sleepRunning(s2)).toBe(false);
    },
  );
});

describe('ending a pane gently (local)', () => {
  const env = envFor('gentle-pane', 'off');

  it('closing a pane hangs up its shell first: its HUP trap runs', async () => {
    const marker = join(work, 'pane-hup');
    const shell = await env.openShell({ cwd: work, cols: 80, rows: 24 });
    let out = '';
    shell.onData((d) => (out += d));
    const exited = new Promise<void>((resolve) => shell.onExit(() => resolve()));
    // A program in the pane that traps the hangup (an interactive bash at its prompt leaves readline as at an EOF).
    shell.write(
      `exec bash -c "trap 'echo HUP >> ${marker}; exit 0' HUP; trap 'echo TERM >> ${marker}' TERM; ` +
        `echo armed-\\$((2+3)); while :; do sleep 0.1; done"\r`,
    );
    await expect.poll(() => out, { timeout: 20_000 }).toContain('armed-5');
    shell.kill();
    await exited;
    expect(firstLine(marker)).toBe('HUP');
  }, 30_000);
});

/** A group whose only member is a zombie: its parent, outside the group, has not reaped it (and will not). */
async function zombieGroup(): Promise<{ pgid: number; end(): void }> {
  const program = [
    'import os, time',
    'pid = os.fork()',
    'if pid == 0:',
    '    os.setpgid(0, 0)',
    '    os._exit(0)',
    'print(pid, flush=True)',
    'time.sleep(60)',
  ].join('\n');
  const parent = spawn('python3', ['-c', program], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pgid = await new Promise<number>((resolve) =>
    parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  // Until the child has exited: a zombie.
  await expect.poll(() => readFileSync(`/proc/${pgid}/stat`, 'latin1').split(') ')[1]?.[0]).toBe('Z');
  return { pgid, end: () => parent.kill('SIGKILL') };
}

describe('groupHasLiveMember', () => {
  it('a group of a zombie only has none; a group with a sleeping process has one', async () => {
    const zombie = await zombieGroup();
    const sleeper = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      expect(groupAlive(zombie.pgid)).toBe(true);
      expect(groupHasLiveMember(zombie.pgid)).toBe(false);
      expect(groupHasLiveMember(sleeper.pid!)).toBe(true);
    } finally {
      zombie.end();
      sleeper.kill('SIGKILL');
    }
  });
});

describe('endGroupScript (what an SSH host runs)', () => {
  it('sends HUP and TERM, waits the grace, then KILL', () => {
    const script = endGroupScript(4242);
    // endGroup.sh's values: the group, HUP before TERM, and two seconds as 20 tenths.
    expect(script.split('\n')[0]).toBe("__sb_g=4242; __sb_sigs='HUP TERM'; __sb_tenths=20");
    expect(script.indexOf('kill -KILL -"$__sb_g"')).toBeGreaterThan(script.indexOf('sleep 0.1'));
  });

  /**
   * Runs the script against group `pgid` as a host would, with a `sleep` on PATH that notes each wait: how often the
   * script waited says whether it waited for nothing.
   */
  function runScript(pgid: number): { status: number | null; waits: number } {
    const bin = mkdtempSync(join(tmpdir(), 'sb-gentle-bin-'));
    const log = join(bin, 'waits');
    writeFileSync(join(bin, 'sleep'), `#!/bin/sh\necho x >> ${log}\nexec /bin/sleep "$@"\n`, { mode: 0o755 });
    const r = spawnSync('sh', ['-c', endGroupScript(pgid)], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    const waits = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
    rmSync(bin, { recursive: true, force: true });
    return { status: r.status, waits };
  }
  const running = (pgid: number): string[] =>
    spawnSync('ps', ['-e', '-o', 'pgid=', '-o', 'stat='], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((l) => new RegExp(`^ *${pgid} +[^Z]`).test(l));

  it('does not wait for a group left with only a zombie (its parent elsewhere has not reaped it yet)', async () => {
    const zombie = await zombieGroup();
    try {
      expect(runScript(zombie.pgid)).toEqual({ status: 0, waits: 0 });
    } finally {
      zombie.end();
    }
  });

  it.each([
    ['a plain sleep', 'sleep 100'],
    ['a loop', 'while true; do sleep 1; done'],
    ['a group deaf to HUP and TERM (ended by KILL after the grace)', "trap '' HUP TERM; sleep 100"],
  ])('ends %s', async (_what, command) => {
    const child = spawn('sh', ['-c', command], { detached: true, stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 300));
    expect(runScript(child.pid!).status).toBe(0);
    expect(running(child.pid!)).toEqual([]);
  });
});
