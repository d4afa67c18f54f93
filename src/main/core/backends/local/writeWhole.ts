// A file write that is whole or not at all, with nothing but Node's fs (it also runs inside a sandbox, in the file
// server): a temp file beside the destination, flushed, given the original's mode and owner, then renamed over it.
// On any failure the temp file is removed and the original stays. A writable file in a folder that takes no new file
// gets the one write there is: in place.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chown, mkdir, open, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

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
}

/** The temp file's name: hidden, beside the destination (same file system, so the rename is atomic). */
export function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.sb-${randomBytes(6).toString('hex')}.tmp`);
}

/** Write `data` to `path` whole or not at all; throws a WriteFailure. */
export async function writeWhole(path: string, data: Buffer): Promise<void> {
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
