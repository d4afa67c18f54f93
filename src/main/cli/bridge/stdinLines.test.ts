// stdin cut into lines as `switchboard mcp` hands them on: split anywhere, `\r\n` or `\n`, empty lines skipped, a last
// line without its newline kept, and a line over the limit never held whole (its head and tail are).
import { describe, expect, it } from 'vitest';
import { KEPT_BYTES, StdinLines } from './stdinLines.js';

/** Every line and cut `input` gives, fed in `pieces` of the given size; `end` ends stdin after it. */
function split(input: string, piece: number, max = 20, end = true): string[] {
  const out: string[] = [];
  const lines = new StdinLines(
    { line: (b) => out.push(b.toString()), tooLong: (head, tail) => out.push(`cut ${head}|${tail}`) },
    max,
  );
  const bytes = Buffer.from(input);
  for (let i = 0; i < bytes.length; i += piece) lines.push(bytes.subarray(i, i + piece));
  if (end) lines.finish();
  return out;
}

describe('StdinLines', () => {
  it.each([
    ['lines', 'a\nbb\n', ['a', 'bb']],
    ['CRLF', 'a\r\nbb\r\n', ['a', 'bb']],
    ['empty lines', '\n\r\na\n\n', ['a']],
    ['a last line without its newline', 'a\nlast', ['a', 'last']],
    ['a last line with only its CR', 'a\nlast\r', ['a', 'last']],
    ['a line of exactly the limit', `${'x'.repeat(20)}\n`, ['x'.repeat(20)]],
    ['the limit and its CR', `${'x'.repeat(20)}\r\nb\n`, ['x'.repeat(20), 'b']],
    ['one over the limit', `${'x'.repeat(21)}\nb\n`, [`cut ${'x'.repeat(21)}|${'x'.repeat(21)}`, 'b']],
    ['one over the limit, last and cut', `${'y'.repeat(30)}`, [`cut ${'y'.repeat(30)}|${'y'.repeat(30)}`]],
  ])('%s', (_, input, expected) => {
    for (const piece of [1, 2, 3, 7, 1000]) expect(split(input, piece)).toEqual(expected);
  });

  it('nothing for a partial line until stdin ends', () => {
    expect(split('a\nb', 1, 20, false)).toEqual(['a']);
  });

  it('keeps only the head and the tail of a line far over the limit', () => {
    const long = `H${'m'.repeat(10 * KEPT_BYTES)}T`;
    for (const piece of [5, 64, 100_000]) {
      const [cut, next] = split(`${long}\nok\n`, piece, 2 * KEPT_BYTES);
      expect(cut).toBe(`cut ${long.slice(0, KEPT_BYTES)}|${long.slice(-KEPT_BYTES)}`);
      expect(next).toBe('ok');
      // The CR of a CRLF is no part of the line's tail.
      expect(split(`${long}\r\n`, piece, 2 * KEPT_BYTES)[0]).toMatch(/mT$/);
    }
  });
});
