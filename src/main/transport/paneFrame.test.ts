// The pane frame layout (shared/paneFrame.ts): round trips, a table of malformed frames, and a client that drops a bad
// one.
import { describe, expect, it } from 'vitest';
import { decodePaneFrame, encodePaneData } from '../../shared/paneFrame.js';
import { paneFrameOf, PaneBatch } from '../core/panes/index.js';
import { CoreClient, type Link } from '../../shared/client.js';
import type { SwitchboardError } from '../../shared/errors.js';

const id = '0b6c2f1e-6d6c-4d3e-9a57-1f0e2d3c4b5a';

describe('pane frames', () => {
  it.each([
    ['ASCII', 'hello\r\n'],
    ['nothing', ''],
    ['two- and three-byte characters', 'é€ — ü'],
    ['a surrogate pair', 'a😀b'],
    ['escape sequences', '\x1b[31mred\x1b[0m\x1b]7;file://h/tmp\x07'],
  ])('round-trips %s, with the chars the JSON event would count', (_, text) => {
    const frame = decodePaneFrame(encodePaneData(id, text));
    expect(frame.pane_id).toBe(id);
    expect(frame.chars).toBe(text.length);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(frame.data)).toBe(text);
  });

  it.each([
    ['one read of ASCII', ['x'.repeat(70_000)]],
    ['several reads of many-byte characters', ['é€', '😀 αβγ', '', 'line\r\n']],
    ['a tiny read', ['a']],
  ])(
    'a batch read into its frame (%s) is byte for byte the frame the encoder makes, and is sent as it is',
    (_, reads) => {
      const text = reads.join('');
      const pending = new PaneBatch(id);
      for (const r of reads) pending.add(Buffer.from(r));
      const { batch, chars } = pending.take()!;
      expect(chars).toBe(text.length);
      expect(Buffer.from(batch).toString('utf8')).toBe(text);
      const frame = paneFrameOf(batch)!;
      expect(Buffer.from(frame).equals(Buffer.from(encodePaneData(id, text)))).toBe(true);
      // The frame to send holds the batch itself: no second copy of the bytes.
      expect(frame.buffer).toBe(batch.buffer);
      expect(paneFrameOf(Buffer.from(batch))).toBeUndefined();
    },
  );

  const good = encodePaneData(id, 'abc');
  const withByte = (i: number, v: number): Uint8Array => {
    const f = good.slice();
    f[i] = v;
    return f;
  };
  const withChars = (chars: number): Uint8Array => {
    const f = good.slice();
    new DataView(f.buffer).setUint32(2 + id.length, chars);
    return f;
  };
  it.each([
    ['empty', new Uint8Array(0), 'shorter than its header'],
    ['a header cut short', good.subarray(0, 10), 'shorter than its header'],
    ['an unknown kind', withByte(0, 7), 'unknown kind 7'],
    ['a zero-length pane id', withByte(1, 0), 'pane id length 0'],
    ['a pane id longer than 64', withByte(1, 65), 'pane id length 65'],
    ['a pane id past the end', withByte(1, 64), 'shorter than its header'],
    ['a control byte in the pane id', withByte(3, 0x0a), 'not printable ASCII'],
    ['more chars than bytes', withChars(4), '4 chars cannot be 3 bytes'],
    ['far fewer chars than bytes', withChars(0), '0 chars cannot be 3 bytes'],
  ])('refuses %s with one bad_request error', (_, bytes, why) => {
    let err: SwitchboardError | undefined;
    try {
      decodePaneFrame(bytes);
    } catch (e) {
      err = e as SwitchboardError;
    }
    expect(err?.code).toBe('bad_request');
    expect(err?.message).toContain(why);
  });

  it('a client drops a malformed frame, says so once, and goes on with the next', () => {
    let deliver: (m: unknown) => void = () => undefined;
    const link: Link = { send: () => undefined, onMessage: (h) => void (deliver = h), onClose: () => undefined };
    const bad: string[] = [];
    const client = new CoreClient(link, (err) => bad.push(err.message));
    const got: string[] = [];
    client.on(
      'pane.data',
      ({ data }) => void got.push(typeof data === 'string' ? data : new TextDecoder().decode(data)),
    );
    expect(() => deliver(withByte(0, 9))).not.toThrow();
    deliver(encodePaneData(id, 'after'));
    expect(bad).toEqual([expect.stringContaining('malformed pane frame')]);
    expect(got).toEqual(['after']);
  });
});
