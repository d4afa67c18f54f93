// A file write over SFTP that is whole or not at all: a temp file beside the destination, written, given the
// original's mode and owner, fsync'd (fsync@openssh.com where the server has it), then renamed over the destination
// with posix-rename@openssh.com (plain SFTP rename refuses an existing destination). Any failure removes the temp file.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { SFTPWrapper, Stats } from 'ssh2';
import { SwitchboardError } from '../../../../shared/errors.js';
import { writeError } from '../../platform/index.js';

/** SFTP status codes (draft-ietf-secsh-filexfer-02). */
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;
/** statvfs's ST_RDONLY bit. */
const ST_RDONLY = 1;

type Cb<T> = (err: Error | undefined | null, value?: T) => void;
function call<T>(fn: (cb: Cb<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));
}

function sftpCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Why a step failed, as an errno name. SFTP v3 says only "Failure" for a full disk or a read-only mount, so a generic
 * failure asks the file system (statvfs@openssh.com) whether it is read-only or has no room for the file.
 */
async function errnoOf(sftp: SFTPWrapper, dir: string, size: number, err: unknown): Promise<string | undefined> {
  const code = sftpCode(err);
  if (code === NO_SUCH_FILE) return 'ENOENT';
  if (code === PERMISSION_DENIED) return 'EACCES';
  if (code === undefined) return undefined;
  const fs = await call<{ f_frsize: number; f_bavail: number; f_flag: number }>((cb) =>
    sftp.ext_openssh_statvfs(dir, cb),
  ).catch(() => undefined); // no statvfs extension: the free room is unknown
  if (!fs) return undefined;
  if (fs.f_flag & ST_RDONLY) return 'EROFS';
  if (fs.f_bavail * fs.f_frsize < size + 8192) return 'ENOSPC';
  return undefined;
}

/** Writes `data` to `path` atomically; `path`'s folder must exist. */
export async function sftpAtomicWrite(sftp: SFTPWrapper, path: string, data: Buffer): Promise<void> {
  // Through a symlink to the file it names, so the link stays a link.
  const link = await call<Stats>((cb) => sftp.lstat(path, cb)).catch(() => undefined);
  // No such file yet: it is created.
  const real = link?.isSymbolicLink() ? await call<string>((cb) => sftp.realpath(path, cb)).catch(() => path) : path;
  const original = link?.isSymbolicLink()
    ? // A dangling link: written through as a new file.
      await call<Stats>((cb) => sftp.stat(real, cb)).catch(() => undefined)
    : link;
  if (original?.isDirectory()) throw writeError(path, 'EISDIR');
  const dir = posix.dirname(real);
  const temp = posix.join(dir, `.${posix.basename(real)}.sb-${randomBytes(6).toString('hex')}.tmp`);
  let handle: Buffer | undefined;
  let made = false;
  try {
    handle = await call<Buffer>((cb) => sftp.open(temp, 'wx', { mode: original ? 0o600 : 0o666 }, cb));
    made = true;
    await call<void>((cb) => sftp.write(handle!, data, 0, data.length, 0, cb));
    if (original) {
      await call<void>((cb) => sftp.fchmod(handle!, original.mode & 0o7777, cb));
      // Keep the owner where the server lets us (as root); anyone else keeps the file as theirs.
      await call<void>((cb) => sftp.fchown(handle!, original.uid, original.gid, cb)).catch(() => undefined);
    }
    // A server without fsync@openssh.com still gets the rename; there is nothing more SFTP can ask for.
    await call<void>((cb) => sftp.ext_openssh_fsync(handle!, cb)).catch((err: unknown) => {
      if (sftpCode(err) !== undefined) throw err;
    });
    const h = handle;
    handle = undefined;
    await call<void>((cb) => sftp.close(h, cb));
    await call<void>((cb) => sftp.ext_openssh_rename(temp, real, cb));
  } catch (err) {
    // Best effort: the write's own error is what the caller needs.
    if (handle) await call<void>((cb) => sftp.close(handle!, cb)).catch(() => undefined);
    // Best effort: the write's own error is what the caller needs.
    if (made) await call<void>((cb) => sftp.unlink(temp, cb)).catch(() => undefined);
    if (err instanceof SwitchboardError) throw err;
    if (sftpCode(err) === undefined) throw err; // the connection, not the file: the caller says so
    throw writeError(path, await errnoOf(sftp, dir, data.length, err), { detail: (err as Error).message });
  }
}
