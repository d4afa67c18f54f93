// Finds the real test services (sshd, dockerd) that scripts/test-env.sh started, for integration tests.
import { existsSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const testEnvDir = join(repoRoot, '.test-env');

/**
 * The JSON that `scripts/env/<name>.sh` wrote, or undefined with a printed reason.
 * Under CI a missing service is an error: CI must start everything the tests need.
 */
export function loadTestEnv<T>(name: string): T | undefined {
  const file = join(testEnvDir, `${name}.json`);
  if (!existsSync(file)) {
    const reason = `${name} test service is not running (no ${file}); run: bash scripts/test-env.sh up`;
    if (process.env.CI) throw new Error(reason);
    console.warn(`skipping ${name} tests: ${reason}`);
    return undefined;
  }
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** What scripts/env/ssh.sh writes: a loopback sshd (and a jump host) with a test user and key. */
export interface SshTestEnv {
  host: string;
  port: number;
  user: string;
  /** Path of the test user's private key. */
  key: string;
  knownHostsLine: string;
  fingerprint: string;
  log: string;
  config: string;
  pidFile: string;
  jumpPort: number;
  jumpKnownHostsLine: string;
  jumpLog: string;
  jumpConfig: string;
  jumpPidFile: string;
}

/** What scripts/env/docker.sh writes: a private dockerd and its test images. */
export interface DockerTestEnv {
  socket: string;
  image: string;
  pythonImage: string | null;
  pidFile: string;
}

/** A container engine's test service: dockerd, or Podman's Docker-compatible API (scripts/env/podman.sh). */
export interface EngineTestEnv extends DockerTestEnv {
  engine: 'docker' | 'podman';
}

/** Every container engine whose test service runs, for the suites the Docker backend runs on each engine. */
export function loadEngineEnvs(): EngineTestEnv[] {
  const engines = (['docker', 'podman'] as const).map((engine) => {
    const env = loadTestEnv<DockerTestEnv>(engine);
    return env && { ...env, engine };
  });
  return engines.filter((e): e is EngineTestEnv => e !== undefined);
}

export const loadSshEnv = (): SshTestEnv | undefined => loadTestEnv<SshTestEnv>('ssh');
export const loadDockerEnv = (): DockerTestEnv | undefined => loadTestEnv<DockerTestEnv>('docker');

/** Removes, running or not, the containers a test made on an engine (by name or label filters); errors are ignored. */
export async function removeContainers(docker: Docker, filters: Record<string, string[]>): Promise<void> {
  const ours = await docker.listContainers({ all: true, filters });
  await Promise.all(
    ours.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
}
