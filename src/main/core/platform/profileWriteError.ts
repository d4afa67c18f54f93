// A write to the profile that failed (the registry, core.json, a run's mark, a lock): one line that names the file,
// what was being done and why, as the audit log and write_file say theirs (backends/writeError.ts), never a bare
// `ENOSPC: no space left on device, write`.
import { SwitchboardError } from '../../../shared/errors.js';
import { errnoReason } from './writeError.js';

/** What was being done with the file: `write` (a temp file, then a rename), `create` (a folder, a lock). */
export type ProfileWrite = 'write' | 'create';

/**
 * `cannot write /p/runtime-targets.json while registering target "box": no space left on the device (ENOSPC); nothing
 * was changed`. A SwitchboardError passes through as it is; anything else that is not an errno error too.
 */
export function profileWriteError(
  err: unknown,
  where: { path: string; action?: ProfileWrite; doing: string; after?: string },
): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (err instanceof SwitchboardError || typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return err;
  return new SwitchboardError(
    'bad_request',
    `cannot ${where.action ?? 'write'} ${where.path} ` +
      `while ${where.doing}: ${errnoReason(code)}; ${where.after ?? 'nothing was changed'}`,
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'free some space on that disk, then try again'
      : code === 'EROFS' || code === 'EACCES' || code === 'EPERM'
        ? 'make the profile folder writable (or set SWITCHBOARD_HOME to one that is), then try again'
        : undefined,
  );
}

/** Run `write` (sync); an errno failure becomes profileWriteError's line. */
export function namingFailure<T>(
  where: { path: string; action?: ProfileWrite; doing: string; after?: string },
  write: () => T,
): T {
  try {
    return write();
  } catch (err) {
    throw profileWriteError(err, where);
  }
}
