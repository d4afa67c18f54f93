import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { makeTestCore } from './testCore.js';
import { describeToolsOn } from './toolsSuite.js';
import { applyPatch, countOccurrences } from './patch.js';
import { isBinary, numberLine, pageLines, splitLines } from './readFile.js';
import { findGlob, parseGrep, searchCommand, toEre } from './searchFiles.js';

function hasPython(): boolean {
  try {
    execFileSync('python3', ['-c', 'pass']);
    return true;
  } catch {
    return false;
  }
}

describeToolsOn('local', async () => {
  const t = await makeTestCore(['a', 'b']);
  return {
    call: (tool, args) => t.core.callTool(tool, args, 'test'),
    targets: ['a', 'b'],
    python: hasPython(),
    close: () => t.close(),
  };
});

describe('read_file paging (pure)', () => {
  it('numbers lines cat -n style', () => {
    expect(numberLine(1, 'x')).toBe('     1\tx');
    expect(numberLine(1234567, 'x')).toBe('1234567\tx');
  });
  it('splits lines without a phantom last line and strips CR', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\n\nb')).toEqual(['a', '', 'b']);
  });
  it('stops at the limit or the char cap and sets next_offset', () => {
    const lines = ['a', 'b', 'c', 'd'];
    expect(pageLines(lines, 1, 2, false)).toMatchObject({ lines_returned: 2, next_offset: 3 });
    expect(pageLines(lines, 1, 10, false)).toEqual({
      content: '     1\ta\n     2\tb\n     3\tc\n     4\td\n',
      lines_returned: 4,
    });
    expect(pageLines(lines, 1, 10, false, 20)).toMatchObject({ lines_returned: 2, next_offset: 3, truncated: true });
    const huge = pageLines(['x'.repeat(500)], 1, 10, false, 100);
    expect(huge.lines_returned).toBe(1);
    expect(huge.content).toMatch(/line cut/);
  });
  it('detects binary content', () => {
    expect(isBinary(Buffer.from([0x41, 0, 0x42]))).toBe(true);
    expect(isBinary(Buffer.from('plain'))).toBe(false);
  });
});

describe('patch (pure)', () => {
  const table: Array<[string, string, string, boolean, string | RegExp, number?]> = [
    ['a b a', 'b', 'B', false, 'a B a', 1],
    ['a b a', 'a', 'A', true, 'A b A', 2],
    ['a b a', 'a', 'A', false, /occurs 2 times/],
    ['a b a', 'c', 'C', false, /not found/],
    ['aaa', 'aa', 'X', true, 'Xa', 1],
    ['x$&y', '$&', '$1', false, 'x$1y', 1],
  ];
  for (const [text, oldS, newS, all, want, n] of table) {
    it(`${JSON.stringify(text)} ${oldS}→${newS}${all ? ' (all)' : ''}`, () => {
      if (want instanceof RegExp) expect(() => applyPatch(text, oldS, newS, all, 'f')).toThrow(want);
      else expect(applyPatch(text, oldS, newS, all, 'f')).toEqual({ text: want, replacements: n });
    });
  }
  it('hints at read_file line numbers pasted into old_string', () => {
    expect(() => applyPatch('x = 1\n', '     1\tx = 1', 'y', false, 'f')).toThrow(
      expect.objectContaining({ hint: expect.stringMatching(/line numbers/) }),
    );
  });
  it('counts non-overlapping occurrences', () => {
    expect(countOccurrences('aaaa', 'aa')).toBe(2);
  });
});

describe('search_files pipeline (pure)', () => {
  it('translates Perl classes to ERE outside brackets only', () => {
    expect(toEre('\\d+\\s\\w')).toBe('[0-9]+[[:space:]]\\w');
    expect(toEre('[\\d]')).toBe('[\\d]');
    expect(toEre('a\\.b')).toBe('a\\.b');
  });
  it('maps globs to find tests', () => {
    expect(findGlob('*.ts')).toEqual({ test: '-name', glob: '*.ts' });
    expect(findGlob('src/**/*.ts')).toEqual({ test: '-path', glob: '*/src/*.ts' });
  });
  it('parses grep -n -H output with context lines and separators', () => {
    expect(
      parseGrep('/r/a.txt:3:hit: yes\n/r/a.txt-4-after\n--\n/r/b-1-x.txt:9:z\nBinary file /r/c matches\n'),
    ).toEqual([
      { path: '/r/a.txt', line: 3, text: 'hit: yes' },
      { path: '/r/a.txt', line: 4, text: 'after', context: true },
      { path: '/r/b-1-x.txt', line: 9, text: 'z' },
    ]);
  });
  it('quotes the pattern and prunes vcs and dependency dirs', () => {
    const cmd = searchCommand({ mode: 'content', pattern: "it's", root: '/tmp/x y', limit: 5, context: 0 });
    expect(cmd).toContain(`'it'\\''s'`);
    expect(cmd).toContain(`'/tmp/x y'`);
    expect(cmd).toMatch(/-name '\.git' -o .*-name 'node_modules'/);
    expect(cmd).toContain('head -n 12');
  });
});
