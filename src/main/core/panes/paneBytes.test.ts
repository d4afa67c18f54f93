// Pane output as bytes: where a batch may end, its chars, and OSC 7 found across chunk edges without decoding a flood.
import { describe, expect, it } from 'vitest';
import { incompleteUtf8Tail, oscScanText, openOscTail, paneChars, paneText } from './paneBytes.js';
import { lastOsc7Cwd } from './panes.js';

describe('incompleteUtf8Tail', () => {
  const text = 'aé€😀';
  const bytes = Buffer.from(text);
  it.each([
    ['ASCII', Buffer.from('abc'), 0],
    ['a whole two-byte char', Buffer.from('aé'), 0],
    ['a whole four-byte char', Buffer.from('a😀'), 0],
    ['the lead of a two-byte char', Buffer.from('aé').subarray(0, 2), 1],
    ['two of three bytes', Buffer.from('a€').subarray(0, 3), 2],
    ['three of four bytes', Buffer.from('a😀').subarray(0, 4), 3],
    ['one of four bytes', Buffer.from('a😀').subarray(0, 2), 1],
    ['a stray continuation byte', Buffer.from([0x61, 0x80]), 0],
    ['nothing', Buffer.alloc(0), 0],
  ])('%s', (_, b, n) => expect(incompleteUtf8Tail(b)).toBe(n));

  it('cutting anywhere and keeping the tail back gives batches that each decode whole', () => {
    for (let at = 0; at <= bytes.length; at++) {
      const first = bytes.subarray(0, at);
      const keep = incompleteUtf8Tail(first);
      const a = first.subarray(0, first.length - keep);
      const b = Buffer.concat([first.subarray(first.length - keep), bytes.subarray(at)]);
      expect(paneText(a) + paneText(b)).toBe(text);
    }
  });
});

describe('paneChars', () => {
  it('counts UTF-16 code units, as the JSON text and the window count them', () => {
    expect(paneChars(Buffer.from('x'.repeat(1000)))).toBe(1000);
    expect(paneChars(Buffer.from('é€😀'))).toBe('é€😀'.length);
  });
});

describe('OSC 7 across chunks', () => {
  const seq = Buffer.from('\x1b]7;file://host/home/zoë/src\x1b\\');

  it('finds a sequence cut at any byte between two chunks', () => {
    const before = Buffer.from('output \x1b[1mbold\x1b[0m ');
    const whole = Buffer.concat([before, seq, Buffer.from('$ ')]);
    for (let at = 1; at < whole.length; at++) {
      const a = whole.subarray(0, at);
      const b = whole.subarray(at);
      const tail = openOscTail(a);
      const cwd = [oscScanText(Buffer.alloc(0), a), oscScanText(tail, b)]
        .map((t) => (t === undefined ? undefined : lastOsc7Cwd(t)))
        .find(Boolean);
      expect(cwd, `cut at ${at}`).toBe('/home/zoë/src');
    }
  });

  it('a flood with colours but no OSC 7 is neither kept nor scanned', () => {
    const chunk = Buffer.from('\x1b[31mred\x1b[0m line\n'.repeat(200));
    expect(openOscTail(chunk).length).toBe(0);
    expect(oscScanText(Buffer.alloc(0), chunk)).toBeUndefined();
  });
});
