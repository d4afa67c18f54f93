import { describe, expect, it } from 'vitest';
import { CommandOutputTee } from './execWrapped.js';

const marker = '__SB_CWD_0123456789abcdef__';
const tail = `\n${marker}:secret API_TOKEN 736b2d6c697665\n\n${marker}/work\n`;

/** What the tee hands on for `stream` cut into `pieces` (chunk boundaries given as offsets). */
function teed(stream: string, cuts: number[], end = false): string {
  let out = '';
  const tee = new CommandOutputTee(marker, (t) => (out += t));
  let at = 0;
  for (const cut of [...cuts, stream.length]) {
    tee.push(stream.slice(at, cut));
    at = cut;
  }
  if (end) tee.end();
  return out;
}

describe('CommandOutputTee: what a call kept of its output is what the command printed', () => {
  const cases: Array<{ name: string; stream: string; cuts: number[]; want: string; end?: boolean }> = [
    { name: 'one chunk', stream: `hello\n${tail}`, cuts: [], want: 'hello\n' },
    { name: 'no output at all', stream: tail.slice(0), cuts: [], want: '' },
    { name: 'the marker split over chunks', stream: `abc${tail}`, cuts: [4, 6, 10], want: 'abc' },
    { name: 'every char its own chunk', stream: `x\ny${tail}`, cuts: [...Array(40).keys()].slice(1), want: 'x\ny' },
    {
      name: 'a line that starts like the marker but is not it',
      stream: `\n__SB_CWD_nope\n${tail}`,
      cuts: [3],
      want: '\n__SB_CWD_nope\n',
    },
    {
      name: 'cut off before the marker (a timeout): all of it',
      stream: 'partial\n__SB_C',
      cuts: [3],
      want: 'partial\n__SB_C',
      end: true,
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const out = teed(c.stream, c.cuts, c.end);
      expect(out).toBe(c.want);
      // The secret frame the shell reports after the output is never handed on.
      expect(out).not.toContain('736b2d6c697665');
    });
});
