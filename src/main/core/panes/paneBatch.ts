// A pane's output since its last batch went, copied as it is read into the binary frame that will send it.
import { paneFrameHeaderBytes } from '../../../shared/paneFrame.js';
import { incompleteUtf8Tail, sealPaneFrame } from './paneBytes.js';
import { FRAME_BYTES, releaseFrame, takeFrame } from './framePool.js';

/**
 * A batch is sent once it holds this many bytes, or before a read that would take it past this; with its header it
 * fits one frame. A flood then costs a socket write and a wakeup of the window's reader per 256 KiB rather than per
 * 64 KiB (bench/run.mjs P1 measures the throughput; README's Speed section gives the figures).
 */
export const BATCH_MAX_BYTES = FRAME_BYTES - 128;

/**
 * Reads are copied once, into a buffer with room for the frame header before them (shared/paneFrame.ts), so the
 * frame a binary window is sent is that buffer, not a second copy. A read may be a view into memory its channel
 * reuses for the next read (the local pty's): nothing here keeps a read, only its copy. The buffer is a pooled frame
 * (framePool.ts) the batch holds; a full batch's frame is handed to the caller of `take` with that hold.
 */
export class PaneBatch {
  private readonly head: number;
  /** Header room, then `used` bytes of output; kept for the next batch when the last one was small (copied out). */
  private buf: Buffer<ArrayBuffer> | undefined;
  private used = 0;

  constructor(private readonly paneId: string) {
    this.head = paneFrameHeaderBytes(paneId);
  }

  /** Bytes waiting to be sent. */
  get bytes(): number {
    return this.used;
  }

  /** Copies a read in. */
  add(read: Uint8Array): void {
    const need = this.head + this.used + read.length;
    if (!this.buf || need > this.buf.length) {
      // Unzeroed: the output is written here and the header when the batch is taken, before anything reads it.
      // A read too large for a frame (not a pty's) gets a buffer of its own size, outside the pool.
      const next = need <= FRAME_BYTES ? takeFrame() : Buffer.allocUnsafe(need);
      if (this.buf) {
        this.buf.copy(next, this.head, this.head, this.head + this.used);
        releaseFrame(this.buf);
      }
      this.buf = next;
    }
    this.buf.set(read, this.head + this.used);
    this.used += read.length;
  }

  /**
   * The batch to send, in its sealed frame: whole characters only (a character cut by the last read waits for the
   * rest of its bytes) unless `all` (the pty has ended). Undefined when there is nothing whole to send. The caller
   * holds the frame once (framePool.ts) and lets it go when it is done with it.
   */
  take(all = false): { batch: Buffer<ArrayBuffer>; chars: number } | undefined {
    const buf = this.buf;
    if (!buf || this.used === 0) return undefined;
    const cut = all ? 0 : incompleteUtf8Tail(buf.subarray(this.head, this.head + this.used));
    const n = this.used - cut;
    if (n === 0) return undefined;
    let frame: Buffer<ArrayBuffer>;
    if (n * 2 < buf.length) {
      // A small batch (typing, a prompt) goes in a frame of its own size, and the buffer is kept for the next one:
      // the replay buffer keeps recent batches, and must not keep 64 KiB for each keystroke's echo.
      // Its frame is not pooled: holding and letting it go are no-ops.
      frame = Buffer.allocUnsafe(this.head + n);
      buf.copy(frame, this.head, this.head, this.head + n);
      buf.copyWithin(this.head, this.head + n, this.head + this.used);
    } else {
      // A full one is sent in the buffer itself, the batch's hold going with it; the cut character, if any, starts
      // the next buffer.
      frame = buf.subarray(0, this.head + n);
      this.buf = undefined;
      if (cut > 0) {
        this.buf = takeFrame();
        buf.copy(this.buf, this.head, this.head + n, this.head + this.used);
      }
    }
    this.used = cut;
    return sealPaneFrame(this.paneId, frame);
  }
}
