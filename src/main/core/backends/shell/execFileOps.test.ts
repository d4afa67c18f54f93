// The Core-side file operations over exec (plugins without file operations, SSH without SFTP), run here through sh
// against a real full 2 MB tmpfs.
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canMountTmpfs, fullDisk, type FullDisk } from '../../tools/index.js';
import { execWriteFile, type RawExec } from './execFileOps.js';

/** A plugin's (or SSH's) exec as sh on this machine: stdout and stderr merged, stdin when given. */
const exec: RawExec = (command, opts) =>
  new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin);
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('close', (code) => resolve({ output, exitCode: code ?? 1 }));
  });

(canMountTmpfs() ? describe : describe.skip)('execWriteFile on a full disk', () => {
  let disk: FullDisk;
  beforeAll(() => (disk = fullDisk()));
  afterAll(() => disk?.unmount());

  it.each([
    ['in chunks', {}],
    ['on stdin', { stdin: true }],
  ])(
    '%s: leaves the original whole with its mode, no temp file, and an error that names the file',
    async (_how, how) => {
      const file = join(disk.dir, 'keep.txt');
      writeFileSync(file, 'original\n');
      chmodSync(file, 0o604);
      disk.fill();
      await expect(execWriteFile(exec, file, Buffer.alloc(20 * 1024, 'n'), how)).rejects.toMatchObject({
        message: expect.stringMatching(
          /^cannot write \S*keep\.txt: no space left on the device \(ENOSPC\); the file is unchanged$/,
        ),
      });
      expect(readFileSync(file, 'utf8')).toBe('original\n');
      expect(readdirSync(disk.dir).sort()).toEqual(['fill', 'keep.txt']);
      disk.free();
      await execWriteFile(exec, file, Buffer.from('new\n'), how);
      expect(readFileSync(file, 'utf8')).toBe('new\n');
      expect(statSync(file).mode & 0o7777).toBe(0o604);
      expect(readdirSync(disk.dir)).toEqual(['keep.txt']);
    },
  );
});
