import { describe, expect, it } from 'vitest';
import { GroupHead } from './groupHead.js';

const M = '__SB_PGID_abc__';

/** Feeds the chunks in order: the output handed back, and the groups told. */
function feed(marker: string | undefined, chunks: string[]): { out: string[]; groups: number[]; pgid?: number } {
  const groups: number[] = [];
  const head = new GroupHead(marker, (pgid) => groups.push(pgid));
  const out = chunks.map((c) => head.take(c));
  return { out, groups, pgid: head.pgid };
}

describe('GroupHead', () => {
  it.each([
    ['the line whole, output after it', M, [`${M}42\nhello`], ['hello'], [42]],
    ['the line split over chunks', M, ['__SB_P', `GID_abc__4`, '2\nhi', ' there'], ['', '', 'hi', ' there'], [42]],
    ['the line alone, then output', M, [`${M}7\n`, 'x\n'], ['', 'x\n'], [7]],
    ['no line (a startup error) is output as it is', M, ['sh: bad\n', 'more'], ['sh: bad\n', 'more'], []],
    ['a line with no group names none', M, [`${M}x\nout`], ['out'], []],
    ['a marker line later in the output is output', M, ['a\n', `${M}5\n`], ['a\n', `${M}5\n`], []],
    ['no marker: everything is output', undefined, [`${M}5\n`, 'b'], [`${M}5\n`, 'b'], []],
  ])('%s', (_name, marker, chunks, out, groups) => {
    const got = feed(marker, chunks);
    expect(got.out).toEqual(out);
    expect(got.groups).toEqual(groups);
    expect(got.pgid).toBe(groups[0]);
  });

  it('gives up what it holds when asked, and only once', () => {
    const head = new GroupHead(M);
    expect(head.take('__SB_PG')).toBe('');
    expect(head.release()).toBe('__SB_PG');
    expect(head.release()).toBe('');
  });
});
