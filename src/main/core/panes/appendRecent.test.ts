import { describe, expect, it } from 'vitest';
import { appendRecent } from './panes.js';

describe('appendRecent', () => {
  it('keeps everything under the limit', () => {
    expect(appendRecent('ab\n', 'cd', 10)).toBe('ab\ncd');
  });
  it('drops the oldest part, starting after a newline when one is near the cut', () => {
    expect(appendRecent('line1\nline2\n', 'line3\n', 12)).toBe('line3\n');
    expect(appendRecent('0123456789', 'abcdef', 8)).toBe('89abcdef');
  });
  it('never exceeds the limit', () => {
    let r = '';
    for (let i = 0; i < 200; i++) r = appendRecent(r, `row ${i}\n`, 100);
    expect(r.length).toBeLessThanOrEqual(100);
    expect(r.endsWith('row 199\n')).toBe(true);
    expect(r.startsWith('row ')).toBe(true);
  });
});
