import { describe, expect, it } from 'vitest';
import { assertReadableFile, assertWithinReadLimit } from './readableFile.js';

describe('the read-file check every backend makes', () => {
  it.each([
    [undefined, 'no such file: /x'],
    [{ type: 'missing', size: 0 }, 'no such file: /x'],
    [{ type: 'directory', size: 4096 }, 'not a regular file: /x'],
    [{ type: 'symlink', size: 3 }, 'not a regular file: /x'],
    [{ type: 'file', size: 11 }, '/x is 11 bytes; the limit is 10'],
  ] as const)('refuses %j in one line', (st, message) => {
    expect(() => assertReadableFile('/x', st, 10)).toThrow(message);
  });

  it('passes a regular file at the limit, and says how to read a part of a larger one', () => {
    expect(() => assertReadableFile('/x', { type: 'file', size: 10 }, 10)).not.toThrow();
    expect(() => assertWithinReadLimit('/x', 11, 10)).toThrow(
      expect.objectContaining({ code: 'too_large', hint: expect.stringMatching(/offset and limit/) }),
    );
  });
});
