// Warm shells on the SSH backend, against the loopback sshd: calls reuse a remote bash and keep every guarantee of a
// channel per call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSshEnv, type SshTestEnv } from '../../../../../scripts/testEnv.js';
import { sleepRunning, sleepSeconds, until } from '../../../../../scripts/sleepProbe.js';
import type { TargetSpec } from '../../../../shared/targets.js';
import type { Environment, ExecOptions, ProviderContext, TargetSnapshot } from '../provider.js';
import { configureSshPool, connectionPool } from './connectionPool.js';
import { sshProvider } from './sshProvider.js';

const env = loadSshEnv();
const nextSleep = sleepSeconds(9000, '83');

const fakeHome = mkdtempSync(join(tmpdir(), 'sb-sshwarm-home-'));
process.env.HOME = fakeHome;
delete process.env.SSH_AUTH_SOCK;
const sbHome = mkdtempSync(join(tmpdir(), 'sb-sshwarm-sbhome-'));
const tag = `w${process.pid}`;

describe.skipIf(!env)('warm shells (SSH)', () => {
  const e = env as SshTestEnv;
  const open: Environment[] = [];
  const spec = (): TargetSpec =>
    ({ backend: 'ssh', ssh_host: e.host, ssh_port: e.port, ssh_user: e.user, ssh_key: e.key }) as TargetSpec;
  const snapshot = (name: string): TargetSnapshot => ({
    name,
    generation: 'g1',
    identity: `${tag}-${name}#g1`,
    source: 'runtime',
    state: 'active',
    spec: spec(),
    flags: { ...sshProvider.flags, strip_env_keys: [] },
    timeoutSec: 180,
  });
  const envFor = (name: string, extra: Partial<ProviderContext> = {}): Environment => {
    const x = sshProvider.createEnvironment(snapshot(name), { home: sbHome, resolveSpec: () => spec(), ...extra });
    open.push(x);
    return x;
  };
  const run = (o: Partial<ExecOptions> = {}): ExecOptions => ({
    cwd: '/tmp',
    timeoutMs: 20_000,
    maxOutputChars: 100_000,
    ...o,
  });
  /**
   * The shell the call's command ran in: the parent of the process running `cut`, with its PID namespace (each
   * sandboxed shell has one of its own, where its pid is always the same).
   */
  const SHELL = 'printf "%s-" "$(readlink /proc/self/ns/pid)"; cut -d" " -f4 /proc/$BASHPID/stat';
  const shellOf = async (x: Environment): Promise<string> => (await x.exec(SHELL, run())).output.trim();

  let a: Environment;
  let b: Environment;
  beforeAll(() => {
    configureSshPool({ releaseGraceMs: 0 });
    writeFileSync(join(sbHome, 'known_hosts'), `${e.knownHostsLine}\n`);
    a = envFor('a');
    b = envFor('b');
  });
  afterAll(async () => {
    await Promise.all(open.splice(0).map((x) => x.cleanup('removed')));
    await connectionPool.closeAll();
    rmSync(fakeHome, { recursive: true, force: true });
    rmSync(sbHome, { recursive: true, force: true });
  });

  it(
    "sequential calls run in the same remote shell, with the identity's exports and cwd and nothing else of " +
      'the last call',
    async () => {
      const first = await shellOf(a);
      expect(first).toMatch(/^pid:\[\d+\]-\d+$/);
      expect(await shellOf(a)).toBe(first);
      const cd = await a.exec('export WARM_KEPT=1; WARM_PLAIN=2; warm_fn() { :; }; set -e; cd /usr', run());
      expect(cd.cwd).toBe('/usr');
      const r = await a.exec(
        'echo "[$WARM_KEPT][$WARM_PLAIN][$(type -t warm_fn)]"; case $- in *e*) echo errexit;; esac; pwd',
        run({ cwd: cd.cwd }),
      );
      expect(r.output).toBe('[1][][]\n/usr\n');
      expect(await shellOf(a)).toBe(first);
      // Another identity has shells of its own and none of a's variables.
      expect(await shellOf(b)).not.toBe(first);
      expect((await b.exec('echo "[$WARM_KEPT]"', run())).output).toBe('[]\n');
    },
  );

  it("calls at once get a shell each and do not see each other's state", async () => {
    const [x, y] = await Promise.all([
      a.exec(`export WARM_X=x; cd /usr; sleep 0.5; echo "$WARM_Y"; ${SHELL}`, run()),
      a.exec(`export WARM_Y=y; cd /var; sleep 0.5; echo "$WARM_X"; ${SHELL}`, run()),
    ]);
    const [xOut, xShell] = x.output.split('\n');
    const [yOut, yShell] = y.output.split('\n');
    expect([xOut, yOut, x.cwd, y.cwd]).toEqual(['', '', '/usr', '/var']);
    expect(xShell).not.toBe(yShell);
  });

  it("a timeout kills the call's whole remote group and the shell takes the next call", async () => {
    const before = await shellOf(a);
    const [s, s2] = [nextSleep(), nextSleep()];
    const r = await a.exec(`sleep ${s} & sleep ${s2}`, run({ timeoutMs: 1000 }));
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    await until(() => !sleepRunning(s) && !sleepRunning(s2), 'both sleeps ended');
    expect((await a.exec('echo next', run())).output).toBe('next\n');
    expect(await shellOf(a)).toBe(before);
  });

  it('a cancelled call ends its remote command', async () => {
    const s = nextSleep();
    const ac = new AbortController();
    const call = a.exec(`sleep ${s}`, run({ signal: ac.signal }));
    await until(() => sleepRunning(s), 'the sleep started');
    ac.abort();
    await call;
    await until(() => !sleepRunning(s), 'the sleep ended');
    expect((await a.exec('echo after', run())).output).toBe('after\n');
  });

  it(
    'a command naming $$ gets a shell of its own; ' + 'a shell killed under a call is replaced, and the call says so',
    async () => {
      expect((await a.exec('kill -TERM $$', run())).exitCode).toBe(143);
      const before = await shellOf(a);
      // The call's subshell's parent is the warm shell.
      const r = await a.exec('me=$BASHPID; kill -KILL "$(cut -d" " -f4 /proc/$me/stat)"; sleep 5', run());
      expect(r.output).toContain('[the warm shell running this call ended; the next call gets a new one]');
      expect((await a.exec('echo fine', run())).output).toBe('fine\n');
      expect(await shellOf(a)).not.toBe(before);
    },
  );

  it('a call that leaves a job in its group retires its shell; cleanup ends the job', async () => {
    const s = nextSleep();
    const before = await shellOf(a);
    expect((await a.exec(`sleep ${s} & echo started`, run())).output).toBe('started\n');
    // A job started with `&` is a fork of the shell until it execs sleep, which may come after the call's answer.
    await until(() => sleepRunning(s), 'the left job runs');
    expect(await shellOf(a)).not.toBe(before);
    const c = envFor('c');
    const t = nextSleep();
    await c.exec(`sleep ${t} &`, run());
    await until(() => sleepRunning(t), 'the left job runs');
    await c.cleanup('removed');
    await until(() => !sleepRunning(t), 'the left job ended');
  });

  it('output caps, exit codes, stdin and run markers hold', async () => {
    const big = await a.exec('head -c 50000 /dev/zero | tr "\\0" x; exit 7', run({ maxOutputChars: 1000 }));
    expect(big).toMatchObject({ exitCode: 7, truncated: true });
    expect((await a.exec('cat', run({ stdin: 'from stdin' }))).output).toBe('from stdin');
    const marked = await a.exec(
      'echo "$SB_CORE_RUN/$SB_CORE_CALL"; cat /proc/self/environ | tr "\\0" "\\n" | grep ^SB_CORE_ | sort',
      run({ env: { SB_CORE_RUN: 'run1', SB_CORE_CALL: 'call1' } }),
    );
    expect(marked.output).toBe('run1/call1\nSB_CORE_CALL=call1\nSB_CORE_RUN=run1\n');
    const next = await a.exec(
      'cat /proc/self/environ | tr "\\0" "\\n" | grep ^SB_CORE_CALL',
      run({ env: { SB_CORE_RUN: 'run1', SB_CORE_CALL: 'call2' } }),
    );
    expect(next.output).toBe('SB_CORE_CALL=call2\n');
  });

  it('withheld names never reach a warm shell; a name passed through later reaches the next call', async () => {
    process.env.WARM_SSH_TEST_TOKEN = 'secret-value';
    const passthrough: string[] = [];
    const d = envFor('d', { envPassthrough: () => passthrough });
    try {
      expect((await d.exec('echo "[$WARM_SSH_TEST_TOKEN]"', run())).output).toBe('[]\n');
      passthrough.push('WARM_SSH_TEST_TOKEN');
      expect((await d.exec('echo "[$WARM_SSH_TEST_TOKEN]"', run())).output).toBe('[secret-value]\n');
      passthrough.pop();
      expect((await d.exec('echo "[$WARM_SSH_TEST_TOKEN]"', run())).output).toBe('[]\n');
    } finally {
      delete process.env.WARM_SSH_TEST_TOKEN;
    }
  });

  it('SWITCHBOARD_NO_WARM_SHELLS=1 runs every call in a channel of its own', async () => {
    const f = envFor('f');
    // The parent of the process the call's command runs in: the shell the call ran in.
    const pid = async (): Promise<string> =>
      (await f.exec('printf "%s-" "$(readlink /proc/self/ns/pid)"; cut -d" " -f4 /proc/self/stat', run())).output;
    process.env.SWITCHBOARD_NO_WARM_SHELLS = '1';
    try {
      // A new shell each call.
      const one = await pid();
      expect(await pid()).not.toBe(one);
      await f.exec('export COLD_KEPT=1', run());
      expect((await f.exec('echo "[$COLD_KEPT]"', run())).output).toBe('[1]\n');
    } finally {
      delete process.env.SWITCHBOARD_NO_WARM_SHELLS;
    }
    // The variables an identity exported carry over between the two paths.
    expect((await f.exec('echo "[$COLD_KEPT]"', run())).output).toBe('[1]\n');
    expect(await shellOf(f)).toBe(await shellOf(f));
  });
});
