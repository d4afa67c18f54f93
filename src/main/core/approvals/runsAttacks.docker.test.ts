// The attacks of issue 24 through the real tool path on a Docker target of the private dockerd (busybox: sh only);
// skipped without it. The container is thrown away after, so `rm -rf usr` through a link to / may be tried there.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDockerEnv } from '../../../../scripts/testEnv.js';
import { builtinProviders } from '../backends/providers.js';
import { makeTestCore } from '../tools/testCore.js';
import { ASK_NOBODY, describeRunAttacksOn } from './testRunAttacks.js';

const env = loadDockerEnv();

describeRunAttacksOn('docker (busybox)', async () => {
  if (!env?.image) return undefined;
  const base =
    `backend: docker, docker_image: "${env.image}", ` + `docker_host: "unix://${env.socket}", docker_network: none`;
  // A managed container skips the guards (dangerous runs unasked there); one that mounts a host directory does not.
  const mount = mkdtempSync(join(tmpdir(), 'sb-runs-docker-'));
  const t = await makeTestCore(['d'], {
    specs: { d: `{ ${base}, docker_volumes: ["${mount}:/mnt/sb"], cwd: /tmp }` },
    providers: builtinProviders,
    extra: ASK_NOBODY,
  });
  return {
    core: t.core,
    target: 'd',
    has: { git: false, python: false, rootLink: true },
    close: async () => {
      await t.close();
      rmSync(mount, { recursive: true, force: true });
    },
  };
});
