// Test helper: a real 2 MB tmpfs on this machine, filled to the last block, to see what a write does on a full disk;
// and the cases every backend's write must pass on it.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** Can this process mount a tmpfs (root, not inside a container that forbids it)? Probed once. */
let probed: boolean | undefined;
export function canMountTmpfs(): boolean {
  if (probed !== undefined) return probed;
  const dir = mkdtempSync('/var/tmp/sb-tmpfs-probe-');
  probed = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]).status === 0;
  if (probed) spawnSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
  return probed;
}

export interface FullDisk {
  dir: string;
  /** Fill every free block (a file named `fill`). */
  fill(): void;
  /** Give the space back. */
  free(): void;
  /** Remount it read-only (true) or writable again (false). */
  readOnly(on: boolean): void;
  unmount(): void;
}

/** A fresh 2 MB tmpfs under /var/tmp (not /tmp: a sandbox has a private /tmp of its own). */
export function fullDisk(): FullDisk {
  const dir = realpathSync(mkdtempSync('/var/tmp/sb-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0777', 'tmpfs', dir]);
  return {
    dir,
    fill: () => {
      // dd stops at ENOSPC (status 1); then the small tail a 1-byte block size still fits.
      spawnSync('dd', ['if=/dev/zero', `of=${join(dir, 'fill')}`, 'bs=4k'], { stdio: 'ignore' });
      spawnSync('sh', ['-c', `while printf x >> ${join(dir, 'fill')} 2>/dev/null; do :; done`], {
        stdio: 'ignore',
        timeout: 20_000,
      });
    },
    free: () => rmSync(join(dir, 'fill'), { force: true }),
    readOnly: (on) => execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir]),
    unmount: () => {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One tool call on the target under test. */
export type CallTool = (tool: string, args: Record<string, unknown>) => Promise<unknown>;

/**
 * The case every backend passes: write_file and patch over an existing file on a full disk leave it whole, with its
 * mode (and owner, `own`), no temp file is left, and the error is the one line naming the file; with room again the
 * patch lands and keeps the mode. `at` maps a name in the disk to the path the target sees.
 */
export async function fullDiskCase(
  disk: FullDisk,
  call: CallTool,
  at: (name: string) => string,
  own?: { uid: number; gid: number },
): Promise<void> {
  const file = join(disk.dir, 'keep.txt');
  writeFileSync(file, 'original text\n');
  chmodSync(file, 0o640);
  if (own) chownSync(file, own.uid, own.gid);
  disk.fill();
  const big = 'n'.repeat(20 * 1024);
  const line = new RegExp(
    `^cannot write ${at('keep.txt').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ` +
      `no space left on the device \\(ENOSPC\\); the file is unchanged$`,
  );
  await expect(call('write_file', { path: at('keep.txt'), content: big })).rejects.toMatchObject({
    message: expect.stringMatching(line),
  });
  await expect(call('patch', { path: at('keep.txt'), old_string: 'original', new_string: big })).rejects.toMatchObject({
    message: expect.stringMatching(line),
  });
  expect(readFileSync(file, 'utf8')).toBe('original text\n');
  expect(statSync(file).mode & 0o7777).toBe(0o640);
  expect(readdirSync(disk.dir).sort()).toEqual(['fill', 'keep.txt']);

  disk.free();
  await call('patch', { path: at('keep.txt'), old_string: 'original', new_string: 'patched' });
  expect(readFileSync(file, 'utf8')).toBe('patched text\n');
  const st = statSync(file);
  expect(st.mode & 0o7777).toBe(0o640);
  if (own) expect([st.uid, st.gid]).toEqual([own.uid, own.gid]);
  expect(readdirSync(disk.dir)).toEqual(['keep.txt']);
}

/** A write through a symlink replaces the file it names and keeps the link. */
export async function symlinkCase(
  disk: FullDisk,
  call: CallTool,
  at: (name: string) => string,
  own?: { uid: number; gid: number },
): Promise<void> {
  writeFileSync(join(disk.dir, 'real.txt'), 'one\n');
  if (own) chownSync(join(disk.dir, 'real.txt'), own.uid, own.gid);
  symlinkSync('real.txt', join(disk.dir, 'link.txt'));
  await call('write_file', { path: at('link.txt'), content: 'two\n' });
  expect(lstatSync(join(disk.dir, 'link.txt')).isSymbolicLink()).toBe(true);
  expect(readFileSync(join(disk.dir, 'real.txt'), 'utf8')).toBe('two\n');
}

/** On a read-only mount the error says so, names the file, and the file is as it was. */
export async function readOnlyCase(
  disk: FullDisk,
  call: CallTool,
  at: (name: string) => string,
  own?: { uid: number; gid: number },
): Promise<void> {
  const file = join(disk.dir, 'fixed.txt');
  writeFileSync(file, 'fixed\n');
  if (own) chownSync(file, own.uid, own.gid);
  disk.readOnly(true);
  try {
    const line = new RegExp(
      `^cannot write ${at('fixed.txt').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ` +
        `read-only file system \\(EROFS\\); the file is unchanged$`,
    );
    await expect(call('write_file', { path: at('fixed.txt'), content: 'changed\n' })).rejects.toMatchObject({
      message: expect.stringMatching(line),
    });
    expect(readFileSync(file, 'utf8')).toBe('fixed\n');
  } finally {
    disk.readOnly(false);
  }
}
