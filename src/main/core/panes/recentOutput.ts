// A pane's recent output, kept for a window that comes back (a reload): appended per batch, joined only when replayed.
import { RECENT_MAX_CHARS, appendRecent } from './appendRecent.js';

/**
 * Batches are kept as they came and whole old ones dropped, so a flood costs one array push per batch; joining a
 * single string per batch copied and scanned the whole buffer each time (the Core's largest cost in a flood).
 * Holds at most `max` chars plus one batch.
 */
export class RecentOutput {
  private chunks: string[] = [];
  private head = 0;
  private size = 0;

  constructor(private readonly max = RECENT_MAX_CHARS) {}

  append(data: string): void {
    if (!data) return;
    this.chunks.push(data);
    this.size += data.length;
    while (this.size - this.chunks[this.head]!.length > this.max) this.size -= this.chunks[this.head++]!.length;
    // Compact now and then rather than shifting the array on every drop.
    if (this.head > 64 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /** The text to replay: at most `max` chars, starting on a line where one starts near the cut. */
  text(): string {
    const joined = this.chunks.slice(this.head).join('');
    return appendRecent('', joined, this.max);
  }
}
