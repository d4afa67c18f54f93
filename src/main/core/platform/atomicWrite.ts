// Writes a file whole or not at all: readers see the old content or the new, never a mix, even across a crash (a temp
// file beside it, flushed, renamed over it, the folder flushed). Two faces for two kinds of file: atomicWriteSync for
// the profile's own files (0600, never through a symlink, a failure said as profileWriteError.ts says it) and
// atomicWrite, async, for a person's files on a local target (through a symlink, mode and owner kept, a failure a
// WriteFailure). Only Node's fs: the async face also runs inside a sandbox, in its file server.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { access, chown, mkdir, open, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import { namingFailure } from './profileWriteError.js';
import { writeError } from './writeError.js';

/** Prefix of a file's temp siblings; whoever holds the file's lock may delete leftovers. */
export function tempPrefix(path: string): string {
  return `.${basename(path)}.tmp-`;
}

/**
 * A file of the profile: temp file (O_EXCL, 0600) → write → fsync → rename over `path` → fsync the directory.
 * Refuses to replace a symlink: the registry must not be redirected to another file. A failure (a full disk, a
 * read-only profile) leaves no temp file and is one line naming `path` and what was being done (`doing`).
 */
export function atomicWriteSync(
  path: string,
  data: string | Buffer,
  mode = 0o600,
  doing = `saving ${basename(path)}`,
): void {
  refuseSymlink(path);
  namingFailure({ path, doing }, () => publishSync(path, data, mode));
}

function publishSync(path: string, data: string | Buffer, mode: number): void {
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

// ---- a person's file (async) --------------------------------------------------------------------------------

/** Why a write failed: the errno, the step, the file it resolved to, and whether it was written in place. */
export class WriteFailure extends Error {
  constructor(
    readonly errno: string | undefined,
    readonly detail: string,
    readonly real: string,
    readonly inPlace = false,
  ) {
    super(detail);
  }

  /** The one line every backend says for a failed write of `path` (writeError.ts). */
  toError(path: string): SwitchboardError {
    return writeError(path, this.errno, { detail: this.detail, inPlace: this.inPlace });
  }
}

/** A person's file's temp name: hidden, beside it (same file system, so the rename is atomic). */
function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.sb-${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * A person's file on this machine (or inside a sandbox, from its file server): `data` whole at `path`, or nothing
 * changed. Through a symlink to the file it names; the original's mode and owner kept; written in place when the
 * folder takes no new file but the file is writable. Throws a WriteFailure (`toError` says it as every backend does).
 */
export async function atomicWrite(path: string, data: Buffer): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (err) {
    throw new WriteFailure((err as NodeJS.ErrnoException).code, String(err), path);
  }
  // Through a symlink to the file it names, so the link stays a link.
  const real = await realpath(path).catch(() => path);
  const original = await stat(real).catch(() => undefined); // no such file yet: it is created
  if (original?.isDirectory()) throw new WriteFailure('EISDIR', 'is a directory', real);
  const temp = tempName(real);
  let step = 'write';
  try {
    // Over an existing file: 0o600 until it is filled, then the original's mode. A new file: 0o666 less the umask.
    const fh = await open(temp, 'wx', original ? 0o600 : 0o666).catch(async (err: NodeJS.ErrnoException) => {
      // No temp file may go beside it, yet the file itself may be written (a writable file in a folder that is not
      // ours): written in place, the one way there is, not atomic.
      if (
        original &&
        (err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS') &&
        (await access(real, constants.W_OK).then(
          () => true,
          () => false,
        ))
      )
        return undefined;
      throw err;
    });
    if (!fh) {
      await writeFile(real, data).catch((err: NodeJS.ErrnoException) => {
        throw new WriteFailure(err.code, String(err), real, true);
      });
      return;
    }
    try {
      await fh.writeFile(data);
      await fh.sync();
      if (original) {
        await fh.chmod(original.mode & 0o7777);
        // Keep the owner where we may (root); as anyone else chown to another owner fails and the file is ours.
        if (original.uid !== process.getuid?.() || original.gid !== process.getgid?.())
          await chown(temp, original.uid, original.gid).catch(() => undefined); // not ours to give away
      }
    } finally {
      await fh.close();
    }
    step = 'rename';
    await rename(temp, real);
  } catch (err) {
    if (err instanceof WriteFailure) throw err;
    await unlink(temp).catch(() => undefined); // gone already, or never made
    throw new WriteFailure((err as NodeJS.ErrnoException).code, `${step}: ${String(err)}`, real);
  }
  // The rename is durable once the folder is flushed; a folder that cannot be opened for it is not an error.
  const dir = await open(dirname(real), 'r').catch(() => undefined);
  await dir?.sync().catch(() => undefined); // a folder that cannot be flushed is not an error
  await dir?.close();
}
