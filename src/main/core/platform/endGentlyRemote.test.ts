// Ending a shell gently where the Core sends the signals through the target: an SSH host (the loopback sshd) and a
// container (the test dockerd). A command that traps HUP/TERM runs its trap to the end; one deaf to both still ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import {
  loadDockerEnv,
  loadSshEnv,
  removeContainers,
  type DockerTestEnv,
  type SshTestEnv,
} from '../../../../scripts/testEnv.js';
import { sleepRunning, sleepSeconds, until } from '../../../../scripts/sleepProbe.js';
import type { TargetSpec } from '../../../shared/targets.js';
import {
  type Environment,
  type ExecOptions,
  type TargetSnapshot,
  type DockerSpec,
  profileLabel,
  shortHash,
} from '../backends/index.js';
import { configureSshPool, connectionPool, sshProvider, dockerProvider } from '../backends/providers.js';
import { endsSettled } from './endGently.js';

const ssh = loadSshEnv();
const dockerEnv = loadDockerEnv();
const nextSleep = sleepSeconds(24000, '25');
const sbHome = mkdtempSync(join(tmpdir(), 'sb-gentle-remote-'));
const tag = `g${process.pid}`;
const opts = (extra: Partial<ExecOptions> = {}): ExecOptions => ({
  cwd: '/tmp',
  timeoutMs: 20_000,
  maxOutputChars: 100_000,
  ...extra,
});

/**
 * A command that notes the signal it got in `marker`, cleans up for 1.3 s (longer than the old grace), says so, and
 * exits.
 */
const trapping = (marker: string, seconds: string): string =>
  ['HUP', 'TERM']
    .map(
      (sig) => `trap 'trap "" HUP TERM; echo ${sig} >> ${marker}; sleep 1.3; echo cleaned >> ${marker}; exit 0' ${sig}`,
    )
    .join('; ') + `; sleep ${seconds} & wait`;
const deaf = (seconds: string): string => `trap '' HUP TERM; sleep ${seconds}`;
/** What the marker holds, read on the target: a gentle signal first, then the end of the trap's cleanup. */
const gentleMarker = /^(HUP|TERM)\n(.*\n)*cleaned\n$/;

afterAll(() => rmSync(sbHome, { recursive: true, force: true }));

describe.skipIf(!ssh)('ending a shell gently (SSH)', () => {
  const e = ssh as SshTestEnv;
  const spec = (): TargetSpec =>
    // Unsandboxed: the trap's file is read from the host's /tmp.
    ({
      backend: 'ssh',
      ssh_host: e.host,
      ssh_port: e.port,
      ssh_user: e.user,
      ssh_key: e.key,
      sandbox: 'off',
    }) as TargetSpec;
  let env: Environment;
  const home = process.env.HOME;
  beforeAll(async () => {
    process.env.HOME = sbHome;
    configureSshPool({ releaseGraceMs: 0 });
    writeFileSync(join(sbHome, 'known_hosts'), `${e.knownHostsLine}\n`);
    const snapshot: TargetSnapshot = {
      name: 'gentle',
      generation: 'g1',
      identity: `${tag}-gentle#g1`,
      source: 'runtime',
      state: 'active',
      spec: spec(),
      flags: { ...sshProvider.flags, strip_env_keys: [] },
      timeoutSec: 180,
    };
    env = sshProvider.createEnvironment(snapshot, { home: sbHome, resolveSpec: () => spec() });
    // Warm before the 1 s timeouts: on a loaded machine a shell's start alone can take that long, and a command timed
    // out before its traps are set leaves no marker to read.
    await env.exec('true', opts());
  }, 60_000);
  afterAll(async () => {
    await env.cleanup('removed');
    await connectionPool.closeAll();
    process.env.HOME = home;
  });

  it.each([
    ['a warm shell', {}],
    ['a channel of its own', { stdin: '' }],
  ])('a timeout in %s sends HUP/TERM first: the trap runs to its end', async (_path, extra) => {
    const marker = `/tmp/sb-gentle-${tag}-${Object.keys(extra).length}`;
    const s = nextSleep();
    const r = await env.exec(trapping(marker, s), opts({ timeoutMs: 1000, ...extra }));
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    await until(() => !sleepRunning(s), 'the trapping command ended');
    await endsSettled();
    expect((await env.exec(`cat ${marker}; rm -f ${marker}`, opts())).output).toMatch(gentleMarker);
  });

  it('a command deaf to HUP and TERM still ends after the grace; the call is answered before that', async () => {
    const s = nextSleep();
    const r = await env.exec(deaf(s), opts({ timeoutMs: 1000 }));
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    expect(sleepRunning(s)).toBe(true);
    await endsSettled();
    await until(() => !sleepRunning(s), 'the deaf command ended', 50);
  });
});

describe.skipIf(!dockerEnv)('ending a shell gently (docker)', () => {
  const te = dockerEnv as DockerTestEnv;
  let env: Environment;
  beforeAll(async () => {
    const spec = {
      backend: 'docker',
      docker_host: te.socket,
      docker_network: 'none',
      docker_image: te.image,
    } as DockerSpec;
    const snapshot: TargetSnapshot = {
      name: `gentle-${tag}`,
      generation: 'g1',
      identity: `gentle-${tag}#g1`,
      source: 'runtime',
      state: 'active',
      spec,
      flags: dockerProvider.flags,
      timeoutSec: 180,
    };
    env = dockerProvider.createEnvironment(snapshot, { home: sbHome, resolveSpec: () => undefined });
    // Warm before the 1 s timeouts: on a loaded machine a shell's start alone can take that long, and a command timed
    // out before its traps are set leaves no marker to read.
    await env.exec('true', opts());
  }, 60_000);
  afterAll(async () => {
    await env.cleanup('removed').catch(() => undefined);
    // Made here, not as the suite is collected: without Docker the suite is skipped, and te is undefined.
    const docker = new Docker({ socketPath: te.socket, host: undefined, port: undefined, protocol: 'http' });
    await removeContainers(docker, { label: [`${profileLabel}=${shortHash(sbHome)}`] });
  });

  it.each([
    ['a warm shell', {}],
    ['an exec of its own', { stdin: '' }],
  ])('a timeout in %s sends HUP/TERM first: the trap runs to its end', async (_path, extra) => {
    const marker = `/tmp/gentle-${Object.keys(extra).length}`;
    const s = nextSleep();
    const r = await env.exec(trapping(marker, s), opts({ timeoutMs: 1000, ...extra }));
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    await until(() => !sleepRunning(s), 'the trapping command ended');
    await endsSettled();
    expect((await env.exec(`cat ${marker}`, opts())).output).toMatch(gentleMarker);
  });

  it.each([
    ['a warm shell', {}],
    ['an exec of its own', { stdin: '' }],
  ])(
    'a command deaf to HUP and TERM in %s still ends after the grace; the call is answered before that',
    async (_path, extra) => {
      const s = nextSleep();
      const r = await env.exec(deaf(s), opts({ timeoutMs: 1000, ...extra }));
      expect(r).toMatchObject({ exitCode: 124, timedOut: true });
      expect(sleepRunning(s)).toBe(true);
      await endsSettled();
      await until(() => !sleepRunning(s), 'the deaf command ended', 50);
    },
  );
});
