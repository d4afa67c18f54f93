// write_file and patch through the Engine's archive API on a full disk: a real 2 MB tmpfs on this machine, bound into
// a busybox container of each engine's test service (scripts/env/docker.sh, scripts/env/podman.sh). Skipped without
// them or a tmpfs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { loadEngineEnvs } from '../../../../scripts/testEnv.js';
import { builtinProviders } from '../backends/providers.js';
import { canMountTmpfs, fullDisk, fullDiskCase, readOnlyCase, symlinkCase, type FullDisk } from './fullDisk.js';
import { makeTestCore, type TestCore } from './testCore.js';

const live = canMountTmpfs() ? describe : describe.skip;

for (const env of loadEngineEnvs())
  live(`atomic writes on a full disk, ${env.engine} (archive API)`, () => {
    let t: TestCore;
    let disk: FullDisk;
    const oldHome = process.env.HOME;
    const at = (name: string) => `/data/${name}`;
    const call = (tool: string, args: Record<string, unknown>) =>
      t.core.callTool(tool, { execution_target: 'box', ...args }, 'test');

    beforeAll(async () => {
      process.env.HOME = mkdtempSync(join(tmpdir(), 'sb-atomic-docker-home-'));
      disk = fullDisk();
      t = await makeTestCore(['box'], {
        specs: {
          box:
            `{ backend: docker, docker_image: "${env.image}", docker_host: "unix://${env.socket}", ` +
            `docker_network: none, docker_volumes: ["${disk.dir}:/data"], cwd: /data }`,
        },
        providers: builtinProviders,
      });
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      disk?.unmount();
      process.env.HOME = oldHome;
    });

    it(
      'write_file and patch over an existing file leave it whole, with its mode, and no temp file; ' +
        'the error names the file',
      () => fullDiskCase(disk, call, at),
      60_000,
    );

    it('on a read-only mount the error names the file and says why', () => readOnlyCase(disk, call, at));

    it('a write through a symlink replaces the file it names and keeps the link', () => symlinkCase(disk, call, at));
  });
