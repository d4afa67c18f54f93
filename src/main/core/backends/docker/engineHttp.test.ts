// A Docker target's health probe asks the Engine over plain HTTP: against the test dockerd it reports every state a
// container can be in (as it did through dockerode) and leaves dockerode unloaded. Containers are set up with the
// docker CLI, so nothing in this file loads dockerode either.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadEngineEnvs } from '../../../../../scripts/testEnv.js';
import type { DockerSpec } from './fields.js';
import type { Environment, TargetSnapshot } from '../provider.js';
import { dockerProvider } from './dockerProvider.js';
import { EngineReplyError, inspectContainer } from './engineHttp.js';
import { engineError, parseDockerHost } from './dockerEndpoint.js';

for (const te of loadEngineEnvs())
  describe(`docker probe over plain HTTP (real ${te.engine})`, () => {
    const label = `unix://${te.socket}`;
    const run = randomBytes(3).toString('hex');
    const box = `sb-probe-${run}`;
    let home: string;
    const envs: Environment[] = [];

    const docker = (...args: string[]): string => {
      const r = spawnSync('docker', ['-H', label, ...args], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`docker ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.trim();
    };

    beforeAll(() => {
      home = mkdtempSync(join(tmpdir(), 'sb-probe-home-'));
      docker('run', '-d', '--name', box, '--network', 'none', te.image, 'sleep', '3600');
    });

    afterAll(async () => {
      await Promise.all(envs.map((e) => e.cleanup('shutdown').catch(() => undefined)));
      spawnSync('docker', ['-H', label, 'rm', '-f', box]);
      rmSync(home, { recursive: true, force: true });
    });

    function open(name: string, spec: Partial<DockerSpec>): Environment {
      const snapshot: TargetSnapshot = {
        name,
        generation: 'g1',
        identity: `${name}#g1`,
        source: 'runtime',
        state: 'active',
        spec: { backend: 'docker', docker_host: te.socket, docker_network: 'none', ...spec },
        flags: dockerProvider.flags,
        timeoutSec: 180,
      };
      const e = dockerProvider.createEnvironment(snapshot, { home, resolveSpec: () => undefined });
      envs.push(e);
      return e;
    }

    it('reports a container running, paused, stopped and gone, and a managed one not made yet', async () => {
      const attached = open('attached', { docker_container: box });
      // The image as the Engine names it: Podman qualifies a local image with its localhost/ registry.
      const image = te.engine === 'podman' ? `localhost/${te.image}` : te.image;
      const seen = (state: string): string => `${label}: ${box} ${state} (${image})`;
      expect(await attached.probe()).toEqual({ ok: true, detail: seen('running') });
      docker('pause', box);
      expect(await attached.probe()).toEqual({ ok: true, detail: seen('paused') });
      docker('unpause', box);
      docker('stop', '-t', '0', box);
      expect(await attached.probe()).toEqual({ ok: true, detail: seen('stopped; started on next use') });
      docker('rm', box);
      expect(await attached.probe()).toEqual({ ok: false, problem: `container "${box}" does not exist on ${label}` });

      const managed = open(`fresh-${run}`, { docker_image: te.image });
      expect(await managed.probe()).toEqual({
        ok: true,
        detail: `${label}: container is created on first use (${te.image})`,
      });
    });

    it('reports an engine that is not there, as before', async () => {
      const sock = join(home, 'no-such-dir', 'docker.sock');
      expect(await open('down', { docker_host: sock, docker_image: te.image }).probe()).toEqual({
        ok: false,
        problem: `docker engine at unix://${sock} is unreachable (no socket there)`,
      });
    });

    it("an error the Engine answers with reads as dockerode's did (status and the Engine's message)", async () => {
      const endpoint = parseDockerHost(te.socket);
      const err = await inspectContainer(endpoint, `no-such-${run}`, AbortSignal.timeout(5000)).catch(
        (x: unknown) => x,
      );
      expect(err).toBeInstanceOf(EngineReplyError);
      expect((err as EngineReplyError).statusCode).toBe(404);
      const said =
        te.engine === 'docker'
          ? `No such container: no-such-${run}`
          : `no container with name or ID "no-such-${run}" found: no such container`;
      expect(engineError(endpoint, err, 'inspect the container').message).toBe(
        `docker engine failed to inspect the container: ${said}`,
      );
    });

    it('probing loads no dockerode (nor the gRPC stack it brings)', () => {
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      expect(loaded.filter((m) => /\/node_modules\/(dockerode|docker-modem|@grpc|protobufjs)\//.test(m))).toEqual([]);
    });
  });
