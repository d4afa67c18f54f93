// Publishes a file so that readers see the old or the new content, never a mix, even across a crash.
import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
  fchmodSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import { namingFailure } from '../profileWriteError.js';

/** Prefix of a file's temp siblings; whoever holds the file's lock may delete leftovers. */
export function tempPrefix(path: string): string {
  return `.${basename(path)}.tmp-`;
}

/**
 * temp file (O_EXCL, 0600) → write → fsync → rename over `path` → fsync the directory.
 * Refuses to replace a symlink: the registry must not be redirected to another file. A failure (a full disk, a
 * read-only profile) leaves no temp file and is one line naming `path` and what was being done (`doing`).
 */
export function atomicWrite(
  path: string,
  data: string | Buffer,
  mode = 0o600,
  doing = `saving ${basename(path)}`,
): void {
  refuseSymlink(path);
  namingFailure({ path, doing }, () => publish(path, data, mode));
}

function publish(path: string, data: string | Buffer, mode: number): void {
  const dir = dirname(path);
  const tmp = join(dir, `${tempPrefix(path)}${process.pid}-${randomBytes(6).toString('hex')}`);
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    mode,
  );
  try {
    try {
      fchmodSync(fd, mode); // the umask may have taken bits away; it never adds any
      const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already renamed or never created */
    }
    throw err;
  }
  fsyncDir(dir);
}

export function refuseSymlink(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) {
      throw new SwitchboardError(
        'not_permitted',
        `${path} is a symbolic link; Switchboard refuses to follow it`,
        'replace it with a regular file (or delete it)',
      );
    }
  } catch (err) {
    if (err instanceof SwitchboardError) throw err;
    /* missing: fine */
  }
}

/** Make a rename durable: fsync the directory that holds the entry (a no-op where the OS refuses). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    fsyncSync(fd);
  } catch {
    /* some platforms cannot fsync a directory */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Temp files left by writers that died before their rename; call only while holding the file's lock. */
export function removeLeftoverTemps(path: string): number {
  const dir = dirname(path);
  const prefix = tempPrefix(path);
  let n = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // no folder: no temp files left in it
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    try {
      unlinkSync(join(dir, name));
      n++;
    } catch {
      /* gone already */
    }
  }
  return n;
}
