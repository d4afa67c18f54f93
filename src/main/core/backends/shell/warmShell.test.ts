// Warm shells on the local backend: calls reuse a live bash and keep every guarantee of a shell per call.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecOptions, TargetSnapshot } from '../provider.js';
import { localProvider } from '../local/localProvider.js';
import type { WarmProcess } from './warmShell.js';
import { WarmShellPool } from './warmShellPool.js';
import { warmCall } from './warmProgram.js';
import { sleepRunning, sleepSeconds, until } from '../../../../../scripts/sleepProbe.js';
import { heapAfterCollection } from '../../../../../scripts/heapProbe.js';

const nextSleep = sleepSeconds(7000, '47');

const home = mkdtempSync(join(tmpdir(), 'sb-warm-'));
// The warm shells' own machinery, watched from the host (pids, /proc): unsandboxed. The sandboxed shells (started
// in bubblewrap, pids of a namespace of their own) are core/sandbox's tests and the sandboxed provider contract.
const snapshot = (name: string): TargetSnapshot => ({
  name,
  generation: 'g',
  identity: `${name}#g`,
  source: 'config',
  state: 'active',
  spec: { backend: 'local', sandbox: 'off' },
  flags: localProvider.flags,
  timeoutSec: 10,
});
const a = localProvider.createEnvironment(snapshot('a'), { home, resolveSpec: () => undefined });
const b = localProvider.createEnvironment(snapshot('b'), { home, resolveSpec: () => undefined });
const opts = (extra: Partial<ExecOptions> = {}): ExecOptions => ({
  cwd: home,
  timeoutMs: 20_000,
  maxOutputChars: 100_000,
  ...extra,
});
/** The pid of the process that ran the call's command: its parent is the shell the call ran in. */
const shellOf = async (env: typeof a): Promise<string> =>
  (await env.exec('cut -d" " -f4 /proc/$BASHPID/stat', opts())).output.trim();

afterAll(async () => {
  await a.cleanup('shutdown');
  await b.cleanup('shutdown');
  rmSync(home, { recursive: true, force: true });
});

describe('warm shells (local)', () => {
  it(
    'sequential calls run in the same live shell, ' + "with the identity's exports and nothing else of the last call",
    async () => {
      const first = await shellOf(a);
      expect(await shellOf(a)).toBe(first);
      await a.exec('export WARM_KEPT=1; WARM_PLAIN=2; warm_fn() { :; }; set -e; cd /', opts());
      const r = await a.exec(
        'echo "[$WARM_KEPT][$WARM_PLAIN][$(type -t warm_fn)]"; case $- in *e*) echo errexit;; esac',
        opts(),
      );
      expect(r.output).toBe('[1][][]\n');
      // Another identity has shells of its own and none of a's variables.
      expect(await shellOf(b)).not.toBe(first);
      expect((await b.exec('echo "[$WARM_KEPT]"', opts())).output).toBe('[]\n');
    },
  );

  it("calls at once get a shell each and do not see each other's state", async () => {
    const [x, y] = await Promise.all([
      a.exec('export WARM_X=x; cd /usr; sleep 0.5; echo "$WARM_Y"; cut -d" " -f4 /proc/$BASHPID/stat', opts()),
      a.exec('export WARM_Y=y; cd /tmp; sleep 0.5; echo "$WARM_X"; cut -d" " -f4 /proc/$BASHPID/stat', opts()),
    ]);
    const [xOut, xShell] = x.output.split('\n');
    const [yOut, yShell] = y.output.split('\n');
    expect([xOut, yOut, x.cwd, y.cwd]).toEqual(['', '', '/usr', '/tmp']);
    expect(xShell).not.toBe(yShell);
  });

  it("a timeout kills the call's whole group and the shell takes the next call", async () => {
    const s = nextSleep();
    const before = await shellOf(a);
    const s2 = nextSleep();
    const r = await a.exec(`sleep ${s} & sleep ${s2}`, opts({ timeoutMs: 1000 }));
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    await until(() => !sleepRunning(s) && !sleepRunning(s2), 'both sleeps ended');
    expect((await a.exec('echo next', opts())).output).toBe('next\n');
    expect(await shellOf(a)).toBe(before);
  });

  it('a shell that dies under a call is replaced, and the call says so', async () => {
    const before = await shellOf(a);
    // In a warm shell $$ is the shell itself (the call runs in a subshell of it).
    const r = await a.exec('kill -KILL $$; sleep 5', opts());
    expect(r.output).toContain('[the warm shell running this call ended; the next call gets a new one]');
    expect((await a.exec('echo fine', opts())).output).toBe('fine\n');
    expect(await shellOf(a)).not.toBe(before);
  });

  it('a call that leaves a job in its group retires its shell; cleanup ends the job', async () => {
    const s = nextSleep();
    const before = await shellOf(a);
    expect((await a.exec(`sleep ${s} & echo started`, opts())).output).toBe('started\n');
    // A job started with `&` is a fork of the shell until it execs sleep, which may come after the call's answer.
    await until(() => sleepRunning(s), 'the left job runs');
    expect(await shellOf(a)).not.toBe(before);
    const c = localProvider.createEnvironment(snapshot('c'), { home, resolveSpec: () => undefined });
    const t = nextSleep();
    await c.exec(`sleep ${t} &`, opts());
    await until(() => sleepRunning(t), 'the left job runs');
    await c.cleanup('removed');
    await until(() => !sleepRunning(t), 'the left job ended');
  });

  it('output caps, exit codes, stdin and run markers hold', async () => {
    const big = await a.exec('head -c 50000 /dev/zero | tr "\\0" x; exit 7', opts({ maxOutputChars: 1000 }));
    expect(big).toMatchObject({ exitCode: 7, truncated: true });
    expect((await a.exec('cat', opts({ stdin: 'from stdin' }))).output).toBe('from stdin');
    const marked = await a.exec(
      'echo "$SB_CORE_RUN/$SB_CORE_CALL"; cat /proc/self/environ | tr "\\0" "\\n" | grep ^SB_CORE_ | sort',
      opts({ env: { SB_CORE_RUN: 'run1', SB_CORE_CALL: 'call1' } }),
    );
    expect(marked.output).toBe('run1/call1\nSB_CORE_CALL=call1\nSB_CORE_RUN=run1\n');
  });
});

describe('warm shells keep what a fresh shell does', () => {
  it(
    'a command with backslashes, quotes, UTF-8 and control characters, in a UTF-8 cwd, or 200 KB long, ' +
      'runs as written',
    async () => {
      const dir = join(home, 'dïr ✓ \\ "q"');
      mkdirSync(dir);
      const r = await a.exec(
        `printf '%s|' 'é ✓' "a\\\\b" '\\x41' $'tab\\there'; printf '%s' "$PWD"`,
        opts({ cwd: dir }),
      );
      expect(r.output).toBe(`é ✓|a\\b|\\x41|tab\there|${dir}`);
      expect(r.cwd).toBe(dir);
      const long = 'x'.repeat(200_000);
      expect((await a.exec(`v='${long}'; echo \${#v}`, opts())).output).toBe('200000\n');
    },
  );

  it('a command that sets -e, noclobber or changes nothing still reports its cwd, status and exports', async () => {
    expect(await a.exec('set -eC; cd /usr; true', opts())).toMatchObject({ exitCode: 0, cwd: '/usr', output: '' });
    await a.exec('set -e; export WARM_E=1', opts());
    expect((await a.exec('echo "$WARM_E"; unset WARM_E', opts())).output).toBe('1\n');
    expect((await a.exec('echo "[$WARM_E]"', opts())).output).toBe('[]\n');
  });

  it(
    'set -e stops at the first failure, return and local fail as at the top of a script, ' +
      'set -x traces only the command',
    async () => {
      expect(await a.exec('set -e; false; echo no', opts())).toMatchObject({ output: '', exitCode: 1 });
      expect((await a.exec('f() { false; echo in-f; }; set -e; f; echo no', opts())).output).toBe('');
      expect((await a.exec('echo "[${FUNCNAME[*]}]"; return 3', opts())).exitCode).toBe(2);
      expect((await a.exec('local x=1', opts())).exitCode).not.toBe(0);
      const traced = await a.exec('set -x; cd /usr; true', opts());
      expect(traced.output).not.toContain('__sb_');
      expect(traced.output).toMatch(/^\++ cd \/usr\n\++ true\n$/);
      expect(traced.cwd).toBe('/usr');
    },
  );

  it(
    'an export spelled through quotes, a variable or a glob ' + 'carries over; a plain command keeps what is there',
    async () => {
      await a.exec('e""xport WARM_Q=1; c=export; $c WARM_V=2', opts());
      expect((await a.exec('ls / > /dev/null', opts())).exitCode).toBe(0);
      expect((await a.exec('echo "$WARM_Q$WARM_V"', opts())).output).toBe('12\n');
      await a.exec('unset WARM_Q WARM_V', opts());
    },
  );

  it('a multi-line export and an unset inherited variable carry over to the next call', async () => {
    await a.exec("export WARM_ML='one\ntwo'; unset HOME", opts());
    expect((await a.exec('echo "$WARM_ML|${HOME-unset}"', opts())).output).toBe('one\ntwo|unset\n');
    // Exporting an unchanged value again is no change; the next call still sees both.
    await a.exec("export WARM_ML='one\ntwo'", opts());
    expect((await a.exec('echo "$WARM_ML|${HOME-unset}"', opts())).output).toBe('one\ntwo|unset\n');
  });
});

describe('warm shells and the environment rule', () => {
  it('withheld names never reach a warm shell; a name passed through later reaches the next call', async () => {
    process.env.WARM_TEST_TOKEN = 'secret-value';
    const passthrough: string[] = [];
    const env = localProvider.createEnvironment(snapshot('d'), {
      home,
      resolveSpec: () => undefined,
      envPassthrough: () => passthrough,
    });
    try {
      expect((await env.exec('echo "[$WARM_TEST_TOKEN]"', opts())).output).toBe('[]\n');
      passthrough.push('WARM_TEST_TOKEN');
      expect((await env.exec('echo "[$WARM_TEST_TOKEN]"', opts())).output).toBe('[secret-value]\n');
      passthrough.pop();
      expect((await env.exec('echo "[$WARM_TEST_TOKEN]"', opts())).output).toBe('[]\n');
    } finally {
      delete process.env.WARM_TEST_TOKEN;
      await env.cleanup('removed');
    }
  });
});

describe("the next call's subshell is forked ahead", () => {
  /**
   * The subshells waiting in `shell`: its live children, leaving out `ran`, the one that ran the last call (it may
   * still be exiting).
   */
  const waitingIn = (shell: string, ran: string): string[] =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p) && p !== ran)
      .filter((p) => {
        try {
          const [state, ppid] = readFileSync(`/proc/${p}/stat`, 'utf8')
            .replace(/^.*\) /, '')
            .split(' ');
          return ppid === shell && state !== 'Z';
        } catch {
          return false;
        }
      });
  /** The subshell a call ran in and its shell. */
  const ranIn = async (env: typeof a): Promise<[string, string]> => {
    const [sub, shell] = (await env.exec('me=$BASHPID; echo "$me $(cut -d" " -f4 /proc/$me/stat)"', opts())).output
      .trim()
      .split(' ');
    return [sub!, shell!];
  };

  it(
    'a call runs in the subshell that was waiting for it, ' + 'and a new one waits after it; none outlives the shell',
    async () => {
      const env = localProvider.createEnvironment(snapshot('f'), { home, resolveSpec: () => undefined });
      const [first, shell] = await ranIn(env);
      // Forked as the last call ended: it may take a moment.
      await until(() => waitingIn(shell, first).length === 1, 'a subshell waits');
      const waiting = waitingIn(shell, first);
      const [second] = await ranIn(env);
      expect(second).toBe(waiting[0]);
      await until(() => waitingIn(shell, second).length === 1, 'the next subshell waits');
      const next = waitingIn(shell, second);
      expect(next[0]).not.toBe(waiting[0]);
      await env.cleanup('removed');
      await until(
        () => !existsSync(`/proc/${shell}`) && !existsSync(`/proc/${next[0]}`),
        'the shell and its waiting subshell ended',
      );
    },
  );

  it(
    'a waiting subshell killed from outside: the next call says its shell ended, runs nothing, ' +
      'and the call after gets a new shell',
    async () => {
      const env = localProvider.createEnvironment(snapshot('h'), { home, resolveSpec: () => undefined });
      try {
        const [ran, shell] = await ranIn(env);
        await until(() => waitingIn(shell, ran).length === 1, 'a subshell waits');
        process.kill(Number(waitingIn(shell, ran)[0]), 'SIGKILL');
        const r = await env.exec('echo never', opts());
        expect(r.output).not.toContain('never');
        expect(r.output).toContain('the warm shell running this call ended');
        expect(r.exitCode).not.toBe(0);
        expect((await env.exec('echo next', opts())).output).toBe('next\n');
        expect(await shellOf(env)).not.toBe(shell);
      } finally {
        await env.cleanup('removed');
      }
    },
  );

  it('a command that reads its stdin finds it empty and leaves the next call as it was sent', async () => {
    const env = localProvider.createEnvironment(snapshot('g'), { home, resolveSpec: () => undefined });
    try {
      const shell = await shellOf(env);
      // The waiting subshell reads its parameters from the shell's stdin: the command must not get the rest of it.
      const r = await env.exec('cat; read -r line; echo "[$line][$(head -c 9 /dev/stdin | wc -c)]"', opts());
      expect(r).toMatchObject({ output: '[][0]\n', exitCode: 0 });
      expect(await env.exec('export WARM_STDIN=1; cd /usr', opts())).toMatchObject({ exitCode: 0, cwd: '/usr' });
      expect(await env.exec('echo "$WARM_STDIN"; exit 3', opts())).toMatchObject({ output: '1\n', exitCode: 3 });
      expect(await shellOf(env)).toBe(shell);
    } finally {
      await env.cleanup('removed');
    }
  });
});

describe('a call is answered when its trap has run, before its subshell is reaped', () => {
  it('a command ended by a signal, or replaced by exec, reports the status a fresh shell would', async () => {
    const env = localProvider.createEnvironment(snapshot('i'), { home, resolveSpec: () => undefined });
    try {
      const shell = await shellOf(env);
      expect((await env.exec('echo a; kill -TERM $BASHPID; echo b', opts())).exitCode).toBe(143);
      expect((await env.exec('kill -USR1 $BASHPID', opts())).exitCode).toBe(138);
      expect((await env.exec('kill -KILL $BASHPID', opts())).exitCode).toBe(137);
      expect((await env.exec('exec sh -c "exit 7"', opts())).exitCode).toBe(7);
      expect((await env.exec('trap "echo mine" EXIT; exit 5', opts())).exitCode).toBe(5);
      expect(await shellOf(env)).toBe(shell);
    } finally {
      await env.cleanup('removed');
    }
  });

  /** A shell process whose stdout and stderr the test writes, in the order the test chooses. */
  const fakeShell = (alive: (pgid: number) => boolean) => {
    const out: Array<(text: string) => void> = [];
    const err: Array<(text: string) => void> = [];
    const exit: Array<() => void> = [];
    const killed: number[] = [];
    const proc: WarmProcess = {
      write: () => undefined,
      // A shell whose stdin is closed exits a moment later, not while the Core is still in the call that closed it.
      end: () => setImmediate(() => exit.forEach((l) => l())),
      onStdout: (l) => out.push(l),
      onStderr: (l) => err.push(l),
      onExit: (l) => exit.push(l),
      killGroup: async (pgid) => void killed.push(pgid),
      groupAlive: alive,
      prelude: '',
    };
    const pool = new WarmShellPool({ start: () => proc }, proc.killGroup, alive);
    return {
      pool,
      shell: pool.acquire()!,
      killed,
      stdout: (text: string) => out.forEach((l) => l(text)),
      stderr: (text: string) => err.forEach((l) => l(text)),
    };
  };
  /** What the shell prints on stdout for a call that ran to its end: marker, done line, end line. */
  const ranToEnd = (call: ReturnType<typeof warmCall>, left: 0 | 1, pgid: number): string =>
    `\n${call.marker}/\n${call.tags.done} 0\n\n${call.tags.end} 0 ${left} ${pgid}\n`;

  it('the answer comes at the done line; the shell takes its next call only after the end line', async () => {
    // The order of the lines is the point.
    const { pool, shell, stdout: say } = fakeShell(() => false);
    const call = warmCall('echo hi', { cwd: '/' }, {});
    const seen: string[] = [];
    const run = shell.run(call, (text) => seen.push(text));
    let answered = false;
    void run.ended.then(() => (answered = true));
    say(`hi\n\n${call.marker}/tmp\n${call.tags.done.slice(0, 9)}`);
    await Promise.resolve();
    expect(answered).toBe(false);
    say(`${call.tags.done.slice(9)} 3\nprinted by a job the call left\n`);
    await run.ended;
    expect(await run.exitStatus()).toEqual({ code: 3 });
    expect(seen.join('')).toBe(`hi\n\n${call.marker}/tmp\n`);
    // Answered, not yet reaped: a sequential call waits for the end line instead of taking another shell.
    expect(shell.usable).toBe(false);
    const settling = pool.settling();
    expect(settling).toBeDefined();
    say(`\n${call.tags.end} 3 0 4242\n`);
    await settling;
    expect(shell.usable).toBe(true);
    expect(pool.acquire()).toBe(shell);
    await pool.close();
  });

  // Stdout and stderr are two pipes: under load the end line (stdout) was read before the pid line (stderr) in 10
  // of 50 runs of the retire test, and the call's group was then unknown when the shell looked for what it left.
  it('an end line read before its pid line still retires a shell whose call left a job in its group', async () => {
    const f = fakeShell((pgid) => pgid === 4242);
    const call = warmCall('sleep 100 & echo started', { cwd: '/' }, {});
    const run = f.shell.run(call, () => undefined);
    f.stdout(`started${ranToEnd(call, 1, 4242)}`);
    await run.ended;
    expect(f.shell.isRetired).toBe(true);
    expect(f.shell.leftovers).toEqual(new Set([4242]));
    // The pid line, read late, changes nothing.
    f.stderr(`${call.tags.pid} 4242\n`);
    expect(f.shell.usable).toBe(false);
    await f.pool.close();
  });

  it("a pid line read after its call's end line is not taken by the next call", async () => {
    const f = fakeShell(() => false);
    const first = warmCall('true', { cwd: '/' }, {});
    const ran = f.shell.run(first, () => undefined);
    f.stdout(ranToEnd(first, 0, 4242));
    await ran.ended;
    expect(f.shell.usable).toBe(true);
    const second = warmCall('sleep 100', { cwd: '/' }, {});
    const run = f.shell.run(second, () => undefined);
    f.stderr(`${first.tags.pid} 4242\n`);
    expect(f.shell.runningGroup).toBeUndefined();
    // Stopped before its own pid line came: the first call's group is not killed for it.
    run.stop();
    f.stderr(`${second.tags.pid} 4343\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(f.killed).toEqual([4343]);
    f.stdout(`\n${second.tags.end} 143 0 4343\n`);
    await run.ended;
    await f.pool.close();
  });

  // A stopped call is answered STOP_ANSWER_MS after its stop when its end line is slower (seen under CI load in a
  // container): its last short line, held back only because a control line could start there, was lost.
  it('a stopped call answered before its end line keeps what it printed, but not the start of a control line', () => {
    const f = fakeShell(() => false);
    const call = warmCall('echo started; sleep 100', { cwd: '/' }, {});
    const seen: string[] = [];
    const run = f.shell.run(call, (text) => seen.push(text));
    f.stderr(`${call.tags.pid} 4242\n`);
    f.stdout('started\n');
    run.stop();
    run.detach();
    expect(seen.join('')).toBe('started\n');

    const other = fakeShell(() => false);
    const next = warmCall('printf x', { cwd: '/' }, {});
    const kept: string[] = [];
    const stopped = other.shell.run(next, (text) => kept.push(text));
    other.stdout(`x\n${next.tags.end.slice(0, 5)}`);
    stopped.stop();
    stopped.detach();
    expect(kept.join('')).toBe('x');
  });

  it('closing the pool right after a call was answered ends what it left, once its end line says so', async () => {
    const f = fakeShell((pgid) => pgid === 4242);
    const call = warmCall('sleep 100 &', { cwd: '/' }, {});
    const run = f.shell.run(call, () => undefined);
    f.stdout(`\n${call.marker}/\n${call.tags.done} 0\n`);
    await run.ended;
    // Closed before either control line about the call's group (the pid line, the end line) was read.
    const closed = f.pool.close();
    f.stdout(`\n${call.tags.end} 0 1 4242\n`);
    await closed;
    expect(f.killed).toEqual([4242]);
  });

  it('lets go of a finished call at once: a burst of calls with large output does not stay in memory', async () => {
    await a.exec('true', opts());
    const before = heapAfterCollection();
    for (let i = 0; i < 24; i++) {
      const r = await a.exec('head -c 400000 /dev/zero | tr "\\0" x', opts({ maxOutputChars: 500_000 }));
      expect(r.output.length).toBe(400_000);
    }
    // 24 × 400,000 chars is 9.6 MB: a timer per call kept each call's output for 10 s after it was answered.
    expect(heapAfterCollection() - before).toBeLessThan(3_000_000);
  });
});
