import { describe, expect, it } from 'vitest';
import { appendRecent } from './appendRecent.js';
import { RecentOutput } from './recentOutput.js';

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

describe('RecentOutput', () => {
  it.each([
    [
      'a prompt after output',
      ['ls\r\n', 'a b c\r\n', '\x1b]7;file://h/tmp\x07/tmp $ '],
      '\x1b]7;file://h/tmp\x07/tmp $ ',
    ],
    ['a line being typed', ['out\n', 'x'.repeat(5000) + '\n$ ', 'echo hi'], '$ echo hi'],
    ['the cursor at a line start', ['one\ntwo\n'], ''],
    ['nothing yet', [], ''],
  ])('Clear keeps only the current line: %s', (_what, batches, kept) => {
    const recent = new RecentOutput(100_000);
    for (const b of batches) recent.append(Buffer.from(b));
    recent.clearToCurrentLine();
    expect(recent.text()).toBe(kept);
    // Output after the clear follows it.
    recent.append(Buffer.from('\r\nnext'));
    expect(recent.text()).toBe(`${kept}\r\nnext`);
  });
  it('replays the newest output, whole under the limit and from a line start past it', () => {
    const recent = new RecentOutput(100);
    let all = '';
    for (let i = 0; i < 500; i++) {
      const batch = i % 7 === 0 ? `row ${i}\n` : 'x'.repeat(i % 13) + `${i}`;
      recent.append(Buffer.from(batch));
      all += batch;
      const text = recent.text();
      expect(all.endsWith(text)).toBe(true);
      if (all.length <= 100) expect(text).toBe(all);
      else expect(text).toBe(appendRecent('', all, 100));
    }
  });
  it('keeps the newest output of a large flood and no more than the limit', () => {
    const recent = new RecentOutput(1000);
    for (let i = 0; i < 10_000; i++) recent.append(Buffer.from(`${i}`.padStart(64, '.')));
    const text = recent.text();
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text.endsWith('9999')).toBe(true);
  });
  it('keeps batches of many-byte characters whole: the replay decodes without a replacement character', () => {
    const recent = new RecentOutput(1000);
    for (let i = 0; i < 500; i++) recent.append(Buffer.from(`é€😀${i}\n`));
    const text = recent.text();
    expect(text).not.toContain('\ufffd');
    expect(text.endsWith('é€😀499\n')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(1000);
  });
  it('keeps small batches (a dot at a time, a spinner, typing) in a few chunks, not one piece each', () => {
    const recent = new RecentOutput(256 * 1024);
    let all = '';
    for (let i = 0; i < 300_000; i++) {
      const batch = i % 1000 === 999 ? `\nline ${i}\n` : '.';
      recent.append(Buffer.from(batch));
      all += batch;
    }
    // 256 KiB of output in 16 KiB chunks: about 17 pieces, not some 260,000 one-byte batches.
    expect(recent.pieces).toBeLessThanOrEqual(20);
    expect(recent.text()).toBe(appendRecent('', all, 256 * 1024));
  });
  it('keeps the order of small and large batches mixed, and the large ones as they came', () => {
    const recent = new RecentOutput(200_000);
    let all = '';
    for (let i = 0; i < 400; i++) {
      const batch = i % 5 === 0 ? `${i}:`.padEnd(8000, 'L') + '\n' : `s${i} `;
      recent.append(Buffer.from(batch));
      all += batch;
      expect(all.endsWith(recent.text())).toBe(true);
    }
    expect(recent.text()).toBe(appendRecent('', all, 200_000));
    // 25 large batches kept, and between each pair the small ones in one chunk.
    expect(recent.pieces).toBeLessThanOrEqual(52);
  });
});
