// The exec skeleton's promises, checked on every shell backend there is a real service for: local, SSH, Docker.
import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDockerEnv, loadSshEnv } from '../../../../../scripts/testEnv.js';
import type { TargetSpec } from '../../../../shared/targets.js';
import type { BackendProvider, Environment, ExecOptions } from '../provider.js';
import { localProvider } from '../local/localProvider.js';
import { configureSshPool, connectionPool } from '../ssh/connectionPool.js';
import { sshProvider } from '../ssh/sshProvider.js';
import { dockerProvider } from '../docker/dockerProvider.js';

const sshEnv = loadSshEnv();
const dockerEnv = loadDockerEnv();
const home = mkdtempSync(join(tmpdir(), 'sb-execwrapped-'));
const opened: Environment[] = [];

function open(provider: BackendProvider, spec: TargetSpec): Environment {
  const name = `ew-${provider.backend}`;
  const x = provider.createEnvironment(
    {
      name,
      generation: 'g1',
      identity: `${name}#g1`,
      source: 'runtime',
      state: 'active',
      spec,
      flags: provider.flags,
      timeoutSec: 180,
    },
    { home, resolveSpec: () => undefined },
  );
  opened.push(x);
  return x;
}

const backends: Array<{ name: string; skip: boolean; env: () => Environment }> = [
  // Unsandboxed: the test shares /tmp folders with the target (the sandbox's /tmp is private; core/sandbox tests it).
  { name: 'local', skip: false, env: () => open(localProvider, { backend: 'local', sandbox: 'off' }) },
  {
    name: 'ssh',
    skip: !sshEnv,
    env: () => {
      const e = sshEnv!;
      writeFileSync(join(home, 'known_hosts'), `${e.knownHostsLine}\n`);
      configureSshPool({ releaseGraceMs: 0 });
      return open(sshProvider, {
        backend: 'ssh',
        ssh_host: e.host,
        ssh_port: e.port,
        ssh_user: e.user,
        ssh_key: e.key,
        ssh_agent: false,
        // A channel's own shell, as the host runs it (in a sandbox, `cmd &` ends with the call's PID namespace).
        sandbox: 'off',
      });
    },
  },
  {
    name: 'docker',
    skip: !dockerEnv,
    env: () =>
      open(dockerProvider, {
        backend: 'docker',
        docker_host: dockerEnv!.socket,
        docker_image: dockerEnv!.image,
        docker_network: 'none',
      }),
  },
];

afterAll(async () => {
  await Promise.all(opened.map((x) => x.cleanup('removed').catch(() => undefined)));
  await connectionPool.closeAll();
  rmSync(home, { recursive: true, force: true });
});

for (const b of backends) {
  describe.skipIf(b.skip)(`exec on ${b.name}`, () => {
    let x: Environment;
    let base: string;
    const run = (o: Partial<ExecOptions> = {}): ExecOptions => ({
      cwd: base,
      timeoutMs: 30_000,
      maxOutputChars: 100_000,
      ...o,
    });

    it('a workdir that does not exist fails with one clear line, runs nothing and moves nothing', async () => {
      x = b.env();
      base = `/tmp/sb-ew-${randomBytes(4).toString('hex')}`;
      if (b.name === 'local') mkdirSync(base);
      else
        expect((await x.exec(`mkdir -p ${base}`, { cwd: '/', timeoutMs: 30_000, maxOutputChars: 1000 })).exitCode).toBe(
          0,
        );
      const err = await x
        .exec('touch ran-here', run({ cwd: `${base}/typo`, cwdMustExist: true }))
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'bad_request', message: `workdir ${base}/typo does not exist` });
      const check = await x.exec('test -e ran-here && echo ran || echo clean; pwd', run());
      expect(check.output).toBe(`clean\n${base}\n`);
      // An existing workdir runs as before.
      expect(await x.exec('pwd', run({ cwd: base, cwdMustExist: true }))).toMatchObject({
        output: `${base}\n`,
        cwd: base,
        exitCode: 0,
      });
    });

    it('a call whose caller gave up before its command started runs nothing', async () => {
      const gone = new AbortController();
      gone.abort();
      const err = await x.exec('touch too-late', run({ signal: gone.signal })).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'cancelled' });
      if (b.name === 'local') expect(existsSync(join(base, 'too-late'))).toBe(false);
    });

    it(
      '`cmd &` returns when the shell finishes; ' +
        'the background child keeps running, no longer tied to the ' +
        'call',
      async () => {
        const pidFile = `${base}/bg.pid`;
        const r = await x.exec(`sleep 300 & echo $! > ${pidFile}; echo started`, run({ timeoutMs: 25_000 }));
        expect(r).toMatchObject({ output: 'started\n', exitCode: 0, timedOut: false, cwd: base });
        const alive = await x.exec(`kill -0 "$(cat ${pidFile})" && echo alive`, run());
        expect(alive.output).toBe('alive\n');
        await x.exec(`kill "$(cat ${pidFile})"; rm -rf ${base}`, run({ cwd: '/' }));
      },
    );
  });
}
