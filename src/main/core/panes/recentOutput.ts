// A pane's recent output, kept for a window that comes back (a reload): appended per batch, decoded only when replayed.
import { RECENT_MAX_CHARS, appendRecent } from './appendRecent.js';
import { holdFrame, releaseFrame } from './framePool.js';

const EMPTY = new Uint8Array(0);

/**
 * Batches under this size are copied into a chunk of CHUNK_BYTES rather than kept one by one. Kept one by one, each
 * small batch (a keystroke's echo, a spinner, a dot printed every few milliseconds) cost objects many times its own
 * bytes: a pane printing a dot at a time held hundreds of thousands of them once its replay buffer was full (the
 * figures: README, Speed).
 */
const COPY_BELOW = 4096;
const CHUNK_BYTES = 16 * 1024;

/**
 * Batches are kept as the pty's bytes and whole old ones dropped, so a flood costs one array push per batch; joining a
 * single string per batch copied and scanned the whole buffer each time (the Core's largest cost in a flood).
 * Holds at most `max` bytes plus one chunk. Each batch is whole characters, so one cut between batches or chunks is
 * too. A batch in a pooled frame is held (framePool.ts) from when it is appended until it is dropped.
 */
export class RecentOutput {
  /** Batches and full chunks of small batches, oldest first; those before `head` are dropped. */
  private chunks: Uint8Array[] = [];
  private head = 0;
  private size = 0;
  /**
   * The chunk small batches are being copied into, after every entry of `chunks`; `openUsed` bytes of it are output.
   */
  private open: Buffer | undefined;
  private openUsed = 0;

  constructor(private readonly max = RECENT_MAX_CHARS) {}

  append(data: Uint8Array): void {
    if (!data.length) return;
    if (data.length < COPY_BELOW) this.copyIn(data);
    else {
      this.seal();
      holdFrame(data);
      this.chunks.push(data);
    }
    this.size += data.length;
    while (this.head < this.chunks.length && this.size - this.chunks[this.head]!.length > this.max) {
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

  /** How many pieces of memory the output is kept in (for tests). */
  get pieces(): number {
    return this.chunks.length - this.head + (this.openUsed > 0 ? 1 : 0);
  }

  /** The text to replay: at most `max` chars, starting on a line where one starts near the cut. */
  text(): string {
    const kept = this.chunks.slice(this.head);
    if (this.open && this.openUsed > 0) kept.push(this.open.subarray(0, this.openUsed));
    return appendRecent('', Buffer.concat(kept).toString('utf8'), this.max);
  }

  /**
   * Forgets what came before the current line (what follows the last line feed: a prompt, a line being typed), as a
   * terminal's Clear keeps only the line the cursor is on.
   */
  clearToCurrentLine(): void {
    this.seal();
    const kept = this.chunks.slice(this.head);
    const all = Buffer.concat(kept);
    const line = new Uint8Array(all.subarray(all.lastIndexOf(0x0a) + 1));
    for (const c of kept) releaseFrame(c);
    this.chunks = [];
    this.head = 0;
    this.size = 0;
    this.append(line);
  }

  private copyIn(data: Uint8Array): void {
    if (this.open && this.openUsed + data.length > this.open.length) this.seal();
    this.open ??= Buffer.allocUnsafe(CHUNK_BYTES);
    this.open.set(data, this.openUsed);
    this.openUsed += data.length;
  }

  /** Ends the open chunk: it joins `chunks`, copied to its size when it is mostly empty (a batch too large came). */
  private seal(): void {
    if (!this.open) return;
    if (this.openUsed > 0) {
      const used = this.open.subarray(0, this.openUsed);
      this.chunks.push(this.openUsed * 2 < CHUNK_BYTES ? new Uint8Array(used) : used);
    }
    this.open = undefined;
    this.openUsed = 0;
  }
}
