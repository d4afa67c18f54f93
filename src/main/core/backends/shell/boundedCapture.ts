// Collects streamed output in bounded memory: the first and last halves are kept, the cut is counted.

export class BoundedCapture {
  private head = '';
  private tail = '';
  private dropped = 0;
  private readonly half: number;

  constructor(readonly maxChars: number) {
    this.half = Math.max(1, Math.floor(maxChars / 2));
  }

  push(chunk: string): void {
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
      if (!chunk) return;
    }
    this.tail += chunk;
    // Trim lazily (at twice the size) so a stream of small chunks stays linear.
    if (this.tail.length > this.half * 2) {
      const cut = this.tail.length - this.half;
      this.dropped += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  get truncated(): boolean {
    return this.dropped > 0 || this.head.length + this.tail.length > this.maxChars;
  }

  /** The raw text; use `render` for what a person sees. */
  text(): { text: string; truncated: boolean } {
    let tail = this.tail;
    let dropped = this.dropped;
    if (tail.length > this.half) {
      dropped += tail.length - this.half;
      tail = tail.slice(tail.length - this.half);
    }
    if (dropped === 0) return { text: this.head + tail, truncated: false };
    return { text: `${this.head}\n[… ${dropped} chars of output cut …]\n${tail}`, truncated: true };
  }
}
