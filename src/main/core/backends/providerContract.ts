// The provider contract suite: one set of vitest checks every backend provider passes, built-in or plugin.
//
// Use it from a test file:
//
//   import { providerContract } from '…/core/backends/providerContract.js';
//   providerContract('my backend', async () => ({
//     provider,                    // the BackendProvider under test (a plugin's: core.plugins.provider('name'))
//     spec: { backend: 'name', … },// a target spec it accepts
//     ctx,                         // a ProviderContext ({ home, resolveSpec: () => undefined } will do)
//     scratch: '/tmp',             // a writable directory on the target; the suite works in a fresh folder under it
//   }));
//
// It covers exec (output, exit code, cwd tracking, exported variables per identity, timeout → 124, output cap,
// stdin), files (read, write, stat — the provider's own or the Core's exec-based fallback), home, probe, cleanup,
// and an interactive shell stream when the provider's flags say `supports_streams`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { TargetSpec } from '../../../shared/targets.js';
import { SwitchboardError } from '../../../shared/errors.js';
import {
  flagsOf,
  type BackendProvider,
  type Environment,
  type ExecOptions,
  type ProviderContext,
  type TargetSnapshot,
} from './provider.js';

export interface ContractSubject {
  provider: BackendProvider;
  spec: TargetSpec;
  ctx: ProviderContext;
  /** A writable absolute directory on the target. */
  scratch: string;
  /** Called after the suite (stop what setup started). */
  close?(): Promise<void> | void;
}

async function until(cond: () => boolean, ms: number, seen: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end)
      throw new Error(`condition not met within ${ms / 1000}s; seen: ${JSON.stringify(seen().slice(-400))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function providerContract(label: string, setup: () => Promise<ContractSubject> | ContractSubject): void {
  describe(`provider contract: ${label}`, () => {
    let subject: ContractSubject;
    let dir: string;
    const envs: Environment[] = [];
    const run = randomBytes(4).toString('hex');

    /** A fresh environment for identity `contract-<run>-<who>#g1`: two names never share state. */
    const envFor = (who: string): Environment => {
      const name = `contract-${run}-${who}`;
      const snapshot: TargetSnapshot = Object.freeze({
        name,
        generation: 'g1',
        identity: `${name}#g1`,
        source: 'runtime',
        state: 'active',
        spec: subject.spec,
        flags: flagsOf(subject.provider, subject.spec),
        timeoutSec: 60,
      });
      const env = subject.provider.createEnvironment(snapshot, subject.ctx);
      envs.push(env);
      return env;
    };
    let env: Environment;
    const opts = (o: Partial<ExecOptions> = {}): ExecOptions => ({
      cwd: dir,
      timeoutMs: 30_000,
      maxOutputChars: 100_000,
      ...o,
    });

    beforeAll(async () => {
      subject = await setup();
      dir = posix.join(subject.scratch, `sb-contract-${run}`);
      env = envFor('a');
      const made = await env.exec(`mkdir -p ${dir}/sub`, { ...opts(), cwd: subject.scratch });
      if (made.exitCode !== 0) throw new Error(`cannot make the scratch folder: ${made.output}`);
    }, 120_000);
    afterAll(async () => {
      // Test cleanup: the scratch folder may already be gone.
      await env?.exec(`rm -rf ${dir}`, opts({ cwd: subject.scratch })).catch(() => undefined);
      // Test cleanup: the environment may already be closed.
      await Promise.all(envs.map((e) => e.cleanup('shutdown').catch(() => undefined)));
      await subject?.close?.();
    }, 60_000);

    it('exec returns the output and the exit code', async () => {
      const r = await env.exec('echo hello; echo oops >&2; exit 3', opts());
      expect(r.exitCode).toBe(3);
      expect(r.output).toContain('hello\n');
      expect(r.output).toContain('oops');
      expect(r.timedOut).toBe(false);
    });

    it('exec reports where a cd left the shell', async () => {
      const r = await env.exec('cd sub && pwd', opts());
      expect(r.cwd).toBe(`${dir}/sub`);
      expect(r.output.trim()).toBe(`${dir}/sub`);
    });

    it('keeps exported variables per identity, never across identities', async () => {
      await env.exec(`export SB_CONTRACT=${run}`, opts());
      expect((await env.exec('echo "[$SB_CONTRACT]"', opts())).output.trim()).toBe(`[${run}]`);
      const other = envFor('b');
      // Another identity may be another sandbox, where the scratch folder does not exist: it works in scratch itself.
      expect((await other.exec('echo "[$SB_CONTRACT]"', opts({ cwd: subject.scratch }))).output.trim()).toBe('[]');
    });

    it('reports the cwd a symbolic link leads to, and a cwd the command removed as a path', async () => {
      expect((await env.exec('mkdir -p real && ln -sfn real link && cd link', opts())).cwd).toBe(`${dir}/real`);
      // As it was, or its parent: never an error line in its place.
      // `$$` sends the call to a shell of its own where the backend has warm shells.
      for (const pid of ['', ': $$; ']) {
        const gone = await env.exec(`${pid}mkdir -p doomed && cd doomed && rmdir ../doomed && echo left`, opts());
        expect(gone).toMatchObject({ output: 'left\n', exitCode: 0 });
        expect([`${dir}/doomed`, dir]).toContain(gone.cwd);
      }
    });

    it('a command that turns on set -u and set -e keeps its exports and cwd, and its output is its own', async () => {
      const r = await env.exec(`set -eu; export SB_NOUNSET=${run}; cd sub; echo done`, opts());
      expect(r).toMatchObject({ output: 'done\n', exitCode: 0, cwd: `${dir}/sub` });
      expect((await env.exec('echo "[$SB_NOUNSET]"', opts())).output.trim()).toBe(`[${run}]`);
      expect(await env.exec('set -u; false', opts())).toMatchObject({ output: '', exitCode: 1 });
    });

    it('a command defining functions named like the commands its exit runs keeps the exports whole', async () => {
      // A `printf` that printed nothing once made every later call run without PATH or HOME.
      const r = await env.exec(
        `printf() { :; }; rm() { :; }; mv() { :; }; cd() { :; }; pwd() { :; }; export SB_OWN_FNS=${run}; echo set`,
        opts(),
      );
      expect(r).toMatchObject({ output: 'set\n', exitCode: 0, cwd: dir });
      const next = await env.exec('echo "[$SB_OWN_FNS]"; ls -d /', opts());
      expect(next).toMatchObject({ output: `[${run}]\n/\n`, exitCode: 0 });
    });

    it('a command past its timeout ends with 124', async () => {
      const r = await env.exec('sleep 30', opts({ timeoutMs: 1500 }));
      expect(r.exitCode).toBe(124);
      expect(r.timedOut).toBe(true);
    }, 40_000);

    it('caps the output and says so', async () => {
      const r = await env.exec(
        'i=0; while [ $i -lt 2000 ]; do echo line-$i-xxxxxxxxxxxxxxxxxxxx; i=$((i+1)); done',
        opts({ maxOutputChars: 2000 }),
      );
      expect(r.truncated).toBe(true);
      expect(r.output.length).toBeLessThan(4000);
      expect(r.output).toContain('line-0-');
      expect(r.output).toContain('line-1999-');
    });

    it('hands stdin to the command', async () => {
      expect((await env.exec('cat', opts({ stdin: 'from stdin\n' }))).output).toBe('from stdin\n');
    });

    it('writes, reads and stats files (parents created)', async () => {
      const file = `${dir}/files/deep/a.txt`;
      const data = Buffer.from(`line one\nbinary \u0000\u00ff end ${run}\n`);
      await env.writeFile(file, data);
      expect(Buffer.compare(await env.readFile(file, 1 << 20), data)).toBe(0);
      expect(await env.stat(file)).toEqual({ type: 'file', size: data.length });
      expect((await env.stat(`${dir}/files`)).type).toBe('directory');
      expect((await env.stat(`${dir}/nothing-here`)).type).toBe('missing');
      await expect(env.readFile(file, 4)).rejects.toSatisfy(
        (e: unknown) => e instanceof SwitchboardError && e.code === 'too_large',
      );
      expect((await env.exec(`cat ${file} | head -1`, opts())).output).toBe('line one\n');
      // Bigger than one command line can carry: a fallback writes it in pieces.
      const big = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7919) % 256));
      await env.writeFile(`${dir}/files/big.bin`, big);
      expect(Buffer.compare(await env.readFile(`${dir}/files/big.bin`, 1 << 20), big)).toBe(0);
    });

    it('knows its home, answers a probe', async () => {
      expect(await env.home()).toMatch(/^\//);
      expect((await env.probe()).ok).toBe(true);
    });

    it('opens an interactive shell when it declares streams (and refuses one otherwise)', async () => {
      const flags = flagsOf(subject.provider, subject.spec);
      if (!flags.supports_streams) {
        await expect(env.openShell({ cwd: dir, cols: 80, rows: 24 })).rejects.toThrow(
          /no interactive shell on this backend/,
        );
        return;
      }
      const shell = await env.openShell({ cwd: dir, cols: 80, rows: 24 });
      let text = '';
      shell.onData((d) => {
        text += d;
        if (d.includes('\x1b[6n')) shell.write('\x1b[1;1R');
      });
      const exited = new Promise<void>((resolve) => shell.onExit(() => resolve()));
      shell.write('echo sb-contract-$((6*7))\n');
      await until(
        () => text.includes('sb-contract-42'),
        30_000,
        () => text,
      );
      shell.kill();
      await exited;
    }, 60_000);

    it('cleans up, and a later call still works', async () => {
      const e = envFor('c');
      await e.exec('true', opts({ cwd: subject.scratch }));
      await e.cleanup('idle');
      expect((await e.exec('echo still', opts({ cwd: subject.scratch }))).output).toBe('still\n');
    });
  });
}
