// A pane's pending output: reads copied at once (their memory may be reused), whole characters per batch, and frames
// sized to what they hold.
import { describe, expect, it } from 'vitest';
import { BATCH_MAX_BYTES, PaneBatch } from './paneBatch.js';
import { paneFrameOf } from './paneBytes.js';
import { FRAME_BYTES } from './framePool.js';
import { decodePaneFrame } from '../../../shared/paneFrame.js';

const id = 'pane-7';
const text = (b: Uint8Array): string => new TextDecoder('utf-8', { fatal: true }).decode(b);

describe('PaneBatch', () => {
  it("keeps what a read said even when the reader reuses the read's memory for the next one", () => {
    const pending = new PaneBatch(id);
    const reused = Buffer.alloc(8);
    for (const chunk of ['one ', 'two ', 'six']) {
      reused.fill(0);
      reused.write(chunk);
      pending.add(reused.subarray(0, chunk.length));
    }
    reused.fill(0x21);
    expect(text(pending.take()!.batch)).toBe('one two six');
  });

  it('holds back a character cut by the last read until the rest comes, unless the pty ended', () => {
    const pending = new PaneBatch(id);
    const euro = Buffer.from('€');
    pending.add(Buffer.concat([Buffer.from('ab'), euro.subarray(0, 1)]));
    expect(text(pending.take()!.batch)).toBe('ab');
    expect(pending.take()).toBeUndefined();
    expect(pending.bytes).toBe(1);
    pending.add(euro.subarray(1));
    expect(text(pending.take()!.batch)).toBe('€');
    pending.add(euro.subarray(0, 2));
    expect(pending.take(true)!.batch).toEqual(euro.subarray(0, 2));
    expect(pending.bytes).toBe(0);
  });

  it('sends a small batch in a frame of its own size, and a full one in the buffer it was read into', () => {
    const pending = new PaneBatch(id);
    pending.add(Buffer.from('$ '));
    const small = pending.take()!.batch;
    // What the replay buffer keeps of a keystroke's echo is its frame, not a whole batch's buffer.
    expect(small.buffer.byteLength).toBeLessThan(BATCH_MAX_BYTES / 4);
    expect(decodePaneFrame(paneFrameOf(small)!)).toMatchObject({ pane_id: id, chars: 2 });
    for (let i = 0; i < 64; i++) pending.add(Buffer.alloc(4000, 'x'.charCodeAt(0) + (i % 3)));
    const full = pending.take()!;
    expect(full.chars).toBe(256_000);
    expect(paneFrameOf(full.batch)!.length).toBeLessThanOrEqual(FRAME_BYTES);
    expect(full.batch.length).toBeLessThanOrEqual(BATCH_MAX_BYTES);
    // The small batch kept its bytes while the buffer was reused.
    expect(text(small)).toBe('$ ');
    expect(text(full.batch)).toBe(
      Array.from({ length: 64 }, (_, i) => String.fromCharCode(120 + (i % 3)).repeat(4000)).join(''),
    );
  });

  it('takes a read larger than a batch whole', () => {
    const pending = new PaneBatch(id);
    pending.add(Buffer.alloc(10, 'a'.charCodeAt(0)));
    pending.add(Buffer.alloc(400_000, 'b'.charCodeAt(0)));
    const { batch, chars } = pending.take()!;
    expect(chars).toBe(400_010);
    expect(text(batch)).toBe('a'.repeat(10) + 'b'.repeat(400_000));
  });
});
