// Pane flow control: its numbers, shared by the Core (which pauses a pane's pty) and the windows, and a window's
// acknowledgements.

/**
 * The Core pauses the pty above this many unacknowledged chars and reads it again once the window is back below the
 * low mark. The window is what may be on its way to (or queued in) the renderer at once: about 2 MB of page memory at
 * most. It must cover the ack round trip at full speed, and the low mark is half of it, so output still in flight
 * keeps the renderer busy while the pty is read again. (VS Code's 100,000 / 5,000 let a flood drain the whole pipe on
 * every pause: the Core sat idle waiting for acks and a flood ran at about half of node-pty's speed.)
 */
export const HIGH_WATERMARK = 1_000_000;
export const LOW_WATERMARK = HIGH_WATERMARK / 2;

/**
 * A window acknowledges written output in chunks of this many chars, and what is left once output stops for
 * ACK_IDLE_MS. Half the low mark: a pane paused just above the high mark is read again after three acks, with a
 * quarter of a million chars still on their way to the renderer to keep it busy meanwhile; and a flood costs one ack
 * per 250,000 chars (a message without a reply: api.ts WireAck) rather than one per 64 KB batch: an ack with a reply
 * cost the Core as much as sending a large batch of output (bench/run.mjs P1).
 */
export const ACK_CHUNK = LOW_WATERMARK / 2;
export const ACK_IDLE_MS = 50;

/** A client's acknowledgements of one pane's output: written chars counted and acknowledged in chunks of ACK_CHUNK. */
export class PaneAcks {
  private pending = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `send` tells the Core `chars` more were written (CoreClient.ackPane). */
  constructor(private readonly send: (chars: number) => void) {}

  /**
   * `chars` more were written: acknowledged at once when a chunk is due, otherwise once output stops for a moment.
   * The rest must not wait for more output: the Core pauses a pane whose unacknowledged output stays above its mark.
   */
  written(chars: number): void {
    this.pending += chars;
    if (this.pending >= ACK_CHUNK) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), ACK_IDLE_MS);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const chars = this.pending;
    if (chars === 0) return;
    this.pending = 0;
    this.send(chars);
  }

  /** Forget what was not acknowledged yet (the pane went away, or is another pane now). */
  reset(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = 0;
  }
}
