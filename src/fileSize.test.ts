// Keeps every source file one a reader can hold (docs/style.md, "Names and size"): none over 600 lines but a table
// of data, whose header says "as data"; a file over 380 lines says why in its header ("Over 380 lines: …").
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const src = __dirname;
/** Lines a file may have before its header must say why it is long. */
const SAYS_WHY = 380;
/** Lines only a table of data may have more of. */
const MOST = 600;
/** How far into a file its header is read. */
const HEADER_LINES = 5;

/** Every non-test .ts/.tsx under src, relative. */
function sources(dir = src, rel = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) return sources(join(dir, d.name), path);
    return /\.tsx?$/.test(d.name) && !/\.test\.tsx?$/.test(d.name) && !d.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** What is wrong with a file's size, or undefined: the rule, as a pure function of its text. */
function sizeProblem(text: string): string | undefined {
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const header = text.split('\n').slice(0, HEADER_LINES).join('\n');
  const data = /^\/\/.*\bas data\b/im.test(header);
  const why = /^\/\/.*\bOver 380 lines: \S/m.test(header);
  if (lines > MOST && !data)
    return `${lines} lines, over ${MOST}: split it by responsibility (only a table whose header says "as data" may be)`;
  if (lines > SAYS_WHY && !data && !why)
    return `${lines} lines, over ${SAYS_WHY}, and its first ${HEADER_LINES} lines do not say why ("Over 380 lines: …")`;
  return undefined;
}

const lines = (n: number, header: string) => `${header}\n${'x;\n'.repeat(n - header.split('\n').length)}`;

describe('file size', () => {
  it.each<[string, string, boolean]>([
    ['short, no reason', lines(380, '// A module.'), true],
    ['381 lines, no reason', lines(381, '// A module.'), false],
    ['381 lines, a reason', lines(381, '// A module.\n// Over 380 lines: one state machine.'), true],
    ['381 lines, the marker with nothing after it', lines(381, '// A module.\n// Over 380 lines: '), false],
    ['a reason on line 6 is not in the header', lines(400, '//\n//\n//\n//\n//\n// Over 380 lines: x'), false],
    ['a reason in code, not a comment', lines(400, "// A module.\nconst s = 'Over 380 lines: x';"), false],
    ['601 lines with a reason', lines(601, '// A module.\n// Over 380 lines: one state machine.'), false],
    ['601 lines of data', lines(601, '// The colour schemes, as data: each scheme.'), true],
    ['data of any length', lines(2000, '// The table the tests run, as data.'), true],
  ])('%s', (_name, text, ok) => {
    expect(sizeProblem(text) === undefined).toBe(ok);
  });

  it('holds for every source file under src', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const problems = files.flatMap((f) => {
      const problem = sizeProblem(readFileSync(join(src, f), 'utf8'));
      return problem ? [`src/${f}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });
});
