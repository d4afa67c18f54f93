// Test helper: a real 2 MB tmpfs on this machine, filled to the last block, to see what a write does on a full disk.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';

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
      spawnSync('sh', ['-c', `while printf x >> ${join(dir, 'fill')} 2>/dev/null; do :; done`], { stdio: 'ignore', timeout: 20_000 });
    },
    free: () => rmSync(join(dir, 'fill'), { force: true }),
    unmount: () => {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
