// write_file and patch over SFTP on a full disk: a real 2 MB tmpfs on this machine, reached through the loopback sshd
// (scripts/env/ssh.sh) as its test user. Skipped without the sshd or without a tmpfs.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSshEnv } from '../../../../scripts/testEnv.js';
import { builtinProviders } from '../backends/providers.js';
import { canMountTmpfs, fullDisk, fullDiskCase, readOnlyCase, symlinkCase, type FullDisk } from './fullDisk.js';
import { makeTestCore, type TestCore } from './testCore.js';

const env = loadSshEnv();
const live = env && process.getuid?.() === 0 && canMountTmpfs() ? describe : describe.skip;

live('atomic writes on a full disk, ssh (SFTP)', () => {
  let t: TestCore;
  let disk: FullDisk;
  let owner = { uid: 0, gid: 0 };
  const oldHome = process.env.HOME;
  const at = (name: string) => join(disk.dir, name);
  const call = (tool: string, args: Record<string, unknown>) =>
    t.core.callTool(tool, { execution_target: 'remote', ...args }, 'test');

  beforeAll(async () => {
    process.env.HOME = mkdtempSync(join(tmpdir(), 'sb-atomic-ssh-home-'));
    delete process.env.SSH_AUTH_SOCK;
    disk = fullDisk();
    // The files belong to the sshd's test user, who writes them.
    owner = {
      uid: Number(execFileSync('id', ['-u', env!.user], { encoding: 'utf8' })),
      gid: Number(execFileSync('id', ['-g', env!.user], { encoding: 'utf8' })),
    };
    chownSync(disk.dir, owner.uid, owner.gid);
    t = await makeTestCore(['remote'], {
      specs: {
        remote:
          `{ backend: ssh, ssh_host: ${env!.host}, ssh_port: ${env!.port}, ssh_user: ${env!.user}, ` +
          `ssh_key: ${env!.key}, cwd: ${disk.dir} }`,
      },
      providers: builtinProviders,
      files: { known_hosts: env!.knownHostsLine + '\n' },
    });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    disk?.unmount();
    process.env.HOME = oldHome;
  });

  it(
    'write_file and patch over an existing file leave it whole, with its mode, and no temp file; ' +
      'the error names the file',
    () => fullDiskCase(disk, call, at, owner),
    60_000,
  );

  it('on a read-only mount the error names the file and says why', () => readOnlyCase(disk, call, at, owner));

  it(
    'a folder the account may not write to: permission denied, naming the file, ' + 'whether the folder exists or not',
    async () => {
      mkdirSync(join(disk.dir, 'roots'), { mode: 0o755 });
      writeFileSync(join(disk.dir, 'roots', 'theirs.txt'), 'root\n');
      for (const name of ['roots/theirs.txt', 'roots/sub/new.txt']) {
        await expect(call('write_file', { path: at(name), content: 'x' })).rejects.toMatchObject({
          message: `cannot write ${at(name)}: permission denied (EACCES); the file is unchanged`,
        });
      }
      expect(readFileSync(join(disk.dir, 'roots', 'theirs.txt'), 'utf8')).toBe('root\n');
    },
  );

  it('a write through a symlink replaces the file it names and keeps the link', () =>
    symlinkCase(disk, call, at, owner));
});
