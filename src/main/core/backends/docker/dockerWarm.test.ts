// Warm shells on the Docker backend, against the test dockerd (busybox: ash, no bash): calls reuse a `sh -s` exec
// and keep every guarantee of an exec per call. A call's shell's parent is its warm shell (0 in an exec of its own):
// `ppid` below reads it with a builtin, so the call's own (sub)shell does the reading.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { loadEngineEnvs, removeContainers } from '../../../../../scripts/testEnv.js';
import { sleepRunning, sleepSeconds, until } from '../../../../../scripts/sleepProbe.js';
import type { DockerSpec } from './fields.js';
import type { Environment, ExecOptions, ProviderContext, TargetSnapshot } from '../provider.js';
import { dockerProvider } from './dockerProvider.js';
import { profileLabel, shortHash } from './containerConfig.js';

const nextSleep = sleepSeconds(7000, '48');
const ppid = 'read -r _ _ _ ppid _ < /proc/self/stat; echo $ppid';
const diedNote = '[the warm shell running this call ended; the next call gets a new one]';

for (const te of loadEngineEnvs())
  describe(`warm shells (${te.engine})`, () => {
    const docker = new Docker({ socketPath: te.socket, host: undefined, port: undefined, protocol: 'http' });
    let home: string;
    let passthrough: string[] = [];
    const envs: Environment[] = [];

    beforeAll(() => {
      home = mkdtempSync(join(tmpdir(), 'sb-docker-warm-'));
    });

    afterAll(async () => {
      await Promise.all(envs.map((e) => e.cleanup('shutdown').catch(() => undefined)));
      await removeContainers(docker, { label: [`${profileLabel}=${shortHash(home)}`] });
      rmSync(home, { recursive: true, force: true });
    });

    function open(name: string, image = te.image): Environment {
      const spec = {
        backend: 'docker',
        docker_host: te.socket,
        docker_network: 'none',
        docker_image: image,
      } as DockerSpec;
      const snapshot: TargetSnapshot = {
        name,
        generation: 'g1',
        identity: `${name}#g1`,
        source: 'runtime',
        state: 'active',
        spec,
        flags: dockerProvider.flags,
        timeoutSec: 180,
      };
      const ctx: ProviderContext = { home, resolveSpec: () => undefined, envPassthrough: () => passthrough };
      const e = dockerProvider.createEnvironment(snapshot, ctx);
      envs.push(e);
      return e;
    }

    const opts = (o: Partial<ExecOptions> = {}): ExecOptions => ({
      cwd: '/',
      timeoutMs: 20_000,
      maxOutputChars: 100_000,
      ...o,
    });
    /** The pid of the warm shell a call ran in; "0" for a call in an exec of its own. */
    const shellOf = async (e: Environment): Promise<string> => (await e.exec(ppid, opts())).output.trim();
    /** shellOf for a call that must run in a warm shell. */
    const warmShellOf = async (e: Environment): Promise<string> => {
      const pid = await shellOf(e);
      expect(pid).toMatch(/^[1-9]\d*$/);
      return pid;
    };
    const containerOf = async (name: string): Promise<Docker.Container> => {
      const [c] = await docker.listContainers({
        all: true,
        filters: { label: [`switchboard.target=${name}`, `${profileLabel}=${shortHash(home)}`] },
      });
      return docker.getContainer(c?.Id ?? '');
    };

    it(
      'sequential calls run in one warm shell (the debug line says so), ' +
        "each with the identity's cwd and exports only",
      async () => {
        const e = open('warm-seq');
        const lines: string[] = [];
        const write = process.stderr.write.bind(process.stderr);
        process.env.SWITCHBOARD_DEBUG = '1';
        process.stderr.write = ((chunk: string | Uint8Array) => {
          lines.push(String(chunk));
          return true;
        }) as typeof process.stderr.write;
        let first: string;
        try {
          first = await shellOf(e);
        } finally {
          process.stderr.write = write;
          delete process.env.SWITCHBOARD_DEBUG;
        }
        expect(lines.join('')).toContain('switchboard debug: exec on warm-seq#g1 in a warm shell');
        expect(first).toMatch(/^[1-9]\d*$/);
        expect(await shellOf(e)).toBe(first);

        const cd = await e.exec(
          'mkdir -p /tmp/wd && cd /tmp/wd && export WARM_KEPT="a b"; WARM_PLAIN=2; warm_fn() { :; }; set -e',
          opts(),
        );
        expect(cd).toMatchObject({ exitCode: 0, cwd: '/tmp/wd' });
        const r = await e.exec(
          `echo "[$WARM_KEPT][$WARM_PLAIN][$(command -v warm_fn)]"; case $- in *e*) echo errexit;; esac; pwd; ${ppid}`,
          opts({ cwd: cd.cwd }),
        );
        expect(r.output).toBe(`[a b][][]\n/tmp/wd\n${first}\n`);
        // A call's own variables (run markers) are its alone.
        expect((await e.exec('echo "$PER_CALL"', opts({ env: { PER_CALL: 'yes' } }))).output).toBe('yes\n');
        expect((await e.exec(`echo "[$PER_CALL]"; ${ppid}`, opts())).output).toBe(`[]\n${first}\n`);
        // stdin and `$$` need an exec of their own, and still work.
        expect((await e.exec('cat; echo " $PPID"', opts({ stdin: 'from stdin' }))).output).toBe('from stdin 0\n');
        expect((await e.exec('[ "$$" -gt 0 ] && echo own $PPID', opts())).output).toBe('own 0\n');
      },
    );

    it(
      'a new shell carries the run markers of the call it started for (a sweep finds it), ' +
        'nothing else of that call',
      async () => {
        const e = open('warm-marks');
        await e.exec('true', opts({ env: { SB_CORE_RUN: 'run1', PER_CALL: 'first' } }));
        const r = await e.exec(
          `echo "[$PER_CALL][$SB_CORE_RUN]"; ${ppid}; tr '\\0' '\\n' < /proc/$ppid/environ | ` +
            `grep -E '^(SB_CORE_RUN|PER_CALL)='`,
          opts({ env: { SB_CORE_RUN: 'run2' } }),
        );
        expect(r.output).toMatch(/^\[\]\[run2\]\n[1-9]\d*\nSB_CORE_RUN=run1\n$/);
      },
    );

    it('identities do not share shells, cwd or exports', async () => {
      const a = open('warm-a');
      const b = open('warm-b');
      await a.exec('export ONLY_A=1', opts());
      expect((await b.exec(`echo "[$ONLY_A]"; ${ppid}`, opts())).output).toMatch(/^\[\]\n[1-9]\d*\n$/);
      expect((await a.exec('echo "[$ONLY_A]"', opts())).output).toBe('[1]\n');
      expect((await a.exec('hostname', opts())).output).not.toBe((await b.exec('hostname', opts())).output);
    });

    it('exit codes, stderr merged, output cap', async () => {
      const e = open('warm-codes');
      const shell = await warmShellOf(e);
      expect(await e.exec('echo out; echo err >&2; exit 3', opts())).toMatchObject({
        exitCode: 3,
        output: 'out\nerr\n',
      });
      expect((await e.exec('no-such-command-here', opts())).exitCode).toBe(127);
      expect((await e.exec('kill -TERM 0', opts())).exitCode).toBe(143);
      const r = await e.exec(`${ppid}; seq 1 100000`, opts({ maxOutputChars: 1_000 }));
      expect(r).toMatchObject({ exitCode: 0, truncated: true });
      expect(r.output.startsWith(`${shell}\n1\n2\n`)).toBe(true);
      expect(r.output.trimEnd().endsWith('99999\n100000')).toBe(true);
      expect(r.output.length).toBeLessThan(1_200);
      expect((await e.exec('printf "ünïcødé ✓"', opts())).output).toBe('ünïcødé ✓');
      expect(await shellOf(e)).toBe(shell);
    });

    it('a timeout kills the whole group, and the next call runs in the same shell', async () => {
      const e = open('warm-timeout');
      const shell = await warmShellOf(e);
      const [s1, s2] = [nextSleep(), nextSleep()];
      const r = await e.exec(`echo started; sleep ${s1} & sleep ${s2}; echo never`, opts({ timeoutMs: 1_000 }));
      expect(r).toMatchObject({ exitCode: 124, timedOut: true, output: 'started\n\n[timed out after 1s]' });
      await until(() => !sleepRunning(s1) && !sleepRunning(s2), 'the timed-out sleeps ended');
      expect(await shellOf(e)).toBe(shell);

      const ac = new AbortController();
      setTimeout(() => ac.abort(), 300);
      const s3 = nextSleep();
      expect((await e.exec(`sleep ${s3}`, opts({ signal: ac.signal }))).exitCode).not.toBe(0);
      await until(() => !sleepRunning(s3), 'the cancelled sleep ended');
      expect(await shellOf(e)).toBe(shell);
    });

    it("concurrent calls run in shells of their own and do not see each other's exports", async () => {
      const e = open('warm-par');
      await shellOf(e);
      const [x, y, z] = await Promise.all([
        e.exec(`export PAR_X=1; sleep 1; echo "[$PAR_Y]"; ${ppid}`, opts()),
        e.exec(`export PAR_Y=1; sleep 1; echo "[$PAR_X]"; ${ppid}`, opts()),
        e.exec(`sleep 1; ${ppid}`, opts()),
      ]);
      const shells = [x, y, z].map((r) => r.output.trim().split('\n').pop());
      expect(new Set(shells).size).toBe(3);
      for (const s of shells) expect(s).toMatch(/^[1-9]\d*$/);
      expect(x?.output.startsWith('[]\n')).toBe(true);
      expect(y?.output.startsWith('[]\n')).toBe(true);
    });

    it('a call that leaves `cmd &` running retires its shell; cleanup ends what it left', async () => {
      const e = open('warm-left');
      const shell = await warmShellOf(e);
      const s = nextSleep();
      expect((await e.exec(`sleep ${s} >/dev/null 2>&1 & echo bg`, opts())).output).toBe('bg\n');
      // A job started with `&` is a fork of the shell until it execs sleep, which may come after the call's answer.
      await until(() => sleepRunning(s), 'the left job runs');
      const next = await warmShellOf(e);
      expect(next).not.toBe(shell);
      await e.cleanup('idle');
      await until(() => !sleepRunning(s), 'the left-over sleep ended at cleanup');
      expect((await e.exec('echo again', opts())).output).toBe('again\n');
    });

    // The first call after a restart runs in a new warm shell; on Podman, which reports the old shell's stream ending
    // later than dockerd, it may meet the old shell first and then runs in an exec of its own (parent 0). Either way it
    // runs once and says what happened.
    const shellAfterRestart = te.engine === 'docker' ? '[1-9]\\d*' : '\\d+';

    it('a container stopped, paused or removed between calls: the next call works and says what happened', async () => {
      const e = open('warm-life');
      const shell = await warmShellOf(e);
      await (await containerOf('warm-life')).pause();
      expect((await e.exec(`echo thawed; ${ppid}`, opts())).output).toBe(
        `[container was paused; unpaused it]\nthawed\n${shell}\n`,
      );

      await (await containerOf('warm-life')).stop({ t: 1 });
      const back = await e.exec(`echo back; ${ppid}`, opts());
      expect(back.output).toMatch(
        new RegExp(`^\\[container was stopped; started it again\\]\\nback\\n${shellAfterRestart}\\n$`),
      );
      expect((await e.exec('echo quiet', opts())).output).toBe('quiet\n');

      const host = (await e.exec('hostname', opts())).output;
      await (await containerOf('warm-life')).remove({ force: true });
      const r = await e.exec(`hostname; ${ppid}`, opts());
      const [notice, newHost, shellPid] = r.output.split('\n');
      expect(notice).toBe('[container was recreated]');
      expect(`${newHost}\n`).not.toBe(host);
      expect(shellPid).toMatch(new RegExp(`^${shellAfterRestart}$`));
    });

    it('a warm shell killed mid-call: the call says so, the next call gets a new shell', async () => {
      const e = open('warm-died');
      const shell = await warmShellOf(e);
      const r = await e.exec('read -r _ _ _ shell _ < /proc/self/stat; kill -9 $shell; sleep 1; echo after', opts());
      expect(r.exitCode).not.toBe(0);
      expect(r.output.endsWith(diedNote)).toBe(true);
      const next = await warmShellOf(e);
      expect(next).not.toBe(shell);
    });

    it('a change of env_passthrough retires the shells started without it', async () => {
      const e = open('warm-pass');
      process.env.SB_WARM_PASSED = 'passed';
      try {
        passthrough = [];
        expect((await e.exec('echo "[$SB_WARM_PASSED]"', opts())).output).toBe('[]\n');
        passthrough = ['SB_WARM_PASSED'];
        expect((await e.exec(`echo "[$SB_WARM_PASSED]"; ${ppid}`, opts())).output).toMatch(/^\[passed\]\n[1-9]\d*\n$/);
      } finally {
        passthrough = [];
        delete process.env.SB_WARM_PASSED;
      }
    });

    it.skipIf(!te.pythonImage)("dash (the python image's sh) runs warm calls too", async () => {
      const e = open('warm-dash', te.pythonImage ?? '');
      const shell = await warmShellOf(e);
      await e.exec('export IN_DASH="x y"; cd /usr', opts());
      expect(
        (await e.exec(`echo "$IN_DASH"; pwd; ${ppid}; readlink /proc/$ppid/exe`, opts({ cwd: '/usr' }))).output,
      ).toBe(`x y\n/usr\n${shell}\n/usr/bin/dash\n`);
    });

    it('SWITCHBOARD_NO_WARM_SHELLS=1 runs every call in an exec of its own', async () => {
      const f = open('warm-off');
      process.env.SWITCHBOARD_NO_WARM_SHELLS = '1';
      try {
        expect(await shellOf(f)).toBe('0');
        expect(await shellOf(f)).toBe('0');
      } finally {
        delete process.env.SWITCHBOARD_NO_WARM_SHELLS;
      }
    });
  });
