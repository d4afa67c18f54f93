// The one line a failed file write says, on every backend: which file, what was refused, and that the file is
// unchanged.
import { SwitchboardError } from '../../../shared/errors.js';

/** The errno names a write is refused with, and how they read. */
const reasons: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
  EFBIG: 'file too large',
  EIO: 'input/output error',
};

/**
 * The errno name in a tool's message (`cat: write error: No space left on device`), for backends that see text only.
 */
const said: Array<[RegExp, string]> = [
  [/No space left on device/i, 'ENOSPC'],
  [/Disk quota exceeded/i, 'EDQUOT'],
  [/Read-only file system/i, 'EROFS'],
  [/Permission denied/i, 'EACCES'],
  [/Operation not permitted/i, 'EPERM'],
  [/Is a directory/i, 'EISDIR'],
  [/Not a directory/i, 'ENOTDIR'],
  [/File too large/i, 'EFBIG'],
  [/Input\/output error/i, 'EIO'],
];

/** How an errno name reads in a write's error line: `no space left on the device (ENOSPC)`. */
export function errnoReason(code: string): string {
  return `${reasons[code] ?? code.toLowerCase()} (${code})`;
}

export function errnoInText(text: string): string | undefined {
  return said.find(([pattern]) => pattern.test(text))?.[1];
}

/**
 * `cannot write /x/y.txt: no space left on the device (ENOSPC); the file is unchanged`. `code` is an errno name when
 * one is known; `detail` is what the backend said otherwise; `note` a bracketed aside (the sandbox's writable roots).
 * A write is atomic (temp file, then rename), so a failed one leaves an existing file as it was and a new one absent.
 */
export function writeError(
  path: string,
  code: string | undefined,
  more: { detail?: string; note?: string; hint?: string; inPlace?: boolean } = {},
): SwitchboardError {
  const said = more.detail?.split('\n').filter(Boolean).pop()?.trim().slice(0, 200);
  const reason = code ? errnoReason(code) : said || 'failed';
  // The one write that is not atomic: a writable file in a folder that takes no new file, written in place.
  const after = more.inPlace
    ? 'it was written in place (its folder takes no new file) and may be cut'
    : 'the file is unchanged';
  return new SwitchboardError(
    'bad_request',
    `cannot write ${path}: ${reason}; ${after}${more.note ? ` ${more.note}` : ''}`,
    more.hint,
  );
}
