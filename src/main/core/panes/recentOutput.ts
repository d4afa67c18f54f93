// A pane's recent output, kept for a window that comes back (a reload): appended per batch, decoded only when replayed.
import { RECENT_MAX_CHARS, appendRecent } from './appendRecent.js';
import { holdFrame, releaseFrame } from './framePool.js';

const EMPTY = new Uint8Array(0);

/**
 * Batches are kept as the pty's bytes and whole old ones dropped, so a flood costs one array push per batch; joining a
 * single string per batch copied and scanned the whole buffer each time (the Core's largest cost in a flood).
 * Holds at most `max` bytes plus one batch. Each batch is whole characters, so one cut between batches is too.
 * A batch in a pooled frame is held (framePool.ts) from when it is appended until it is dropped.
 */
export class RecentOutput {
  private chunks: Uint8Array[] = [];
  private head = 0;
  private size = 0;

  constructor(private readonly max = RECENT_MAX_CHARS) {}

  append(data: Uint8Array): void {
    if (!data.length) return;
    holdFrame(data);
    this.chunks.push(data);
    this.size += data.length;
    while (this.size - this.chunks[this.head]!.length > this.max) {
      const dropped = this.chunks[this.head]!;
      this.chunks[this.head++] = EMPTY;
      this.size -= dropped.length;
      releaseFrame(dropped);
    }
    // Compact now and then rather than shifting the array on every drop.
    if (this.head > 64 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /** The text to replay: at most `max` chars, starting on a line where one starts near the cut. */
  text(): string {
    const joined = Buffer.concat(this.chunks.slice(this.head)).toString('utf8');
    return appendRecent('', joined, this.max);
  }
}
