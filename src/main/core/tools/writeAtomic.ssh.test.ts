// write_file and patch over SFTP on a full disk: a real 2 MB tmpfs on this machine, reached through the loopback sshd
// (scripts/env/ssh.sh) as its test user. Skipped without the sshd or without a tmpfs.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSshEnv } from '../../../../scripts/testEnv.js';
import { builtinProviders } from '../backends/builtins.js';
import { canMountTmpfs, fullDisk, type FullDisk } from './fullDisk.js';
import { makeTestCore, type TestCore } from './testCore.js';

const env = loadSshEnv();
const live = env && process.getuid?.() === 0 && canMountTmpfs() ? describe : describe.skip;

live('atomic writes on a full disk, ssh (SFTP)', () => {
  let t: TestCore;
  let disk: FullDisk;
  let owner = { uid: 0, gid: 0 };
  const oldHome = process.env.HOME;
  const call = (tool: string, args: Record<string, unknown>) => t.core.callTool(tool, { execution_target: 'remote', ...args }, 'test');

  beforeAll(async () => {
    process.env.HOME = mkdtempSync(join(tmpdir(), 'sb-atomic-ssh-home-'));
    delete process.env.SSH_AUTH_SOCK;
    disk = fullDisk();
    // The files belong to the sshd's test user, who writes them.
    owner = { uid: Number(execFileSync('id', ['-u', env!.user], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', env!.user], { encoding: 'utf8' })) };
    chownSync(disk.dir, owner.uid, owner.gid);
    t = await makeTestCore(['remote'], {
      specs: { remote: `{ backend: ssh, ssh_host: ${env!.host}, ssh_port: ${env!.port}, ssh_user: ${env!.user}, ssh_key: ${env!.key}, cwd: ${disk.dir} }` },
      providers: builtinProviders,
      files: { known_hosts: env!.knownHostsLine + '\n' },
    });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    disk?.unmount();
    process.env.HOME = oldHome;
  });

  it('write_file and patch over an existing file leave it whole, with its mode, and no temp file; the error names the file', async () => {
    const file = join(disk.dir, 'keep.txt');
    writeFileSync(file, 'original text\n');
    chmodSync(file, 0o640);
    chownSync(file, owner.uid, owner.gid);
    disk.fill();
    const big = 'n'.repeat(20 * 1024);
    const line = /^cannot write \S*keep\.txt: no space left on the device \(ENOSPC\); the file is unchanged$/;
    await expect(call('write_file', { path: file, content: big })).rejects.toMatchObject({ message: expect.stringMatching(line) });
    await expect(call('patch', { path: file, old_string: 'original', new_string: big })).rejects.toMatchObject({ message: expect.stringMatching(line) });
    expect(readFileSync(file, 'utf8')).toBe('original text\n');
    expect(statSync(file).mode & 0o7777).toBe(0o640);
    expect(readdirSync(disk.dir).sort()).toEqual(['fill', 'keep.txt']);

    disk.free();
    await call('patch', { path: file, old_string: 'original', new_string: 'patched' });
    expect(readFileSync(file, 'utf8')).toBe('patched text\n');
    expect(statSync(file).mode & 0o7777).toBe(0o640);
    expect(readdirSync(disk.dir)).toEqual(['keep.txt']);
  }, 60_000);

  it('a write through a symlink replaces the file it names and keeps the link', async () => {
    writeFileSync(join(disk.dir, 'real.txt'), 'one\n');
    chownSync(join(disk.dir, 'real.txt'), owner.uid, owner.gid);
    symlinkSync('real.txt', join(disk.dir, 'link.txt'));
    await call('write_file', { path: join(disk.dir, 'link.txt'), content: 'two\n' });
    expect(lstatSync(join(disk.dir, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(disk.dir, 'real.txt'), 'utf8')).toBe('two\n');
  });
});
