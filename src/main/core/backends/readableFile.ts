// The check every backend makes before it reads a file for read_file: the path names a regular file, no larger than
// the limit. Written once so that local, SSH, Docker and plugin targets refuse the same things in the same words.
import { SwitchboardError } from '../../../shared/errors.js';
import type { FileStat } from './provider.js';

/** Throws too_large, with how to read a part instead, when a file of `size` bytes is over `maxBytes`. */
export function assertWithinReadLimit(path: string, size: number, maxBytes: number): void {
  if (size > maxBytes)
    throw new SwitchboardError(
      'too_large',
      `${path} is ${size} bytes; the limit is ${maxBytes}`,
      'read a part of it with offset and limit, or use terminal with head/tail',
    );
}

/** Throws unless `st` (undefined: nothing there) is a regular file within the limit. */
export function assertReadableFile<S extends { type: FileStat['type'] | 'symlink'; size: number }>(
  path: string,
  st: S | undefined,
  maxBytes: number,
): asserts st is S {
  if (!st || st.type === 'missing') throw new SwitchboardError('bad_request', `no such file: ${path}`);
  if (st.type !== 'file') throw new SwitchboardError('bad_request', `not a regular file: ${path}`);
  assertWithinReadLimit(path, st.size, maxBytes);
}
