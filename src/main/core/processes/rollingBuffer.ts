// Keeps the newest output of one background process in bounded memory, counting what fell off the front.

/** Pushes between two flattenings of the kept text (see `push`). */
const FLATTEN_EVERY = 4096;

export class RollingBuffer {
  private text = '';
  /** Chars dropped from the front so far: absolute offset of `text[0]`. */
  private dropped = 0;

  /** Pushes since `text` was last made one string. */
  private pieces = 0;

  constructor(readonly maxChars: number) {}

  push(chunk: string): void {
    this.text += chunk;
    // Trim lazily (at 1.5× the bound) so a stream of small chunks stays linear.
    if (this.text.length > this.maxChars * 1.5) this.trim();
    // Each `+=` adds a node to a rope of the pushes (V8's cons strings, some 30 bytes each): a process printing a char
    // at a time kept 300,000 of them (about 10 MB) until the next trim. Reading a char makes the rope one string
    // again, a copy of at most 1.5 × maxChars every FLATTEN_EVERY pushes (under 80 chars copied per push).
    else if (++this.pieces >= FLATTEN_EVERY) {
      this.pieces = 0;
      this.text.charCodeAt(0);
    }
  }

  private trim(): void {
    if (this.text.length <= this.maxChars) return;
    this.pieces = 0;
    const cut = this.text.length - this.maxChars;
    this.text = this.text.slice(cut);
    this.dropped += cut;
  }

  /** Every char ever pushed. */
  get total(): number {
    return this.dropped + this.text.length;
  }

  /** Output from absolute offset `from` to the end; `lost` says how many chars since `from` were already dropped. */
  since(from: number): { text: string; lost: number } {
    this.trim();
    const start = Math.max(from, this.dropped);
    return { text: this.text.slice(start - this.dropped), lost: start - from };
  }

  /** `limit` chars from absolute offset `from`, or undefined when part of them was already dropped. */
  slice(from: number, limit: number): string | undefined {
    this.trim();
    if (from < this.dropped) return undefined;
    const start = from - this.dropped;
    let end = Math.min(this.text.length, start + limit);
    // Never between the halves of a surrogate pair (the next slice starts with the pair).
    const code = this.text.charCodeAt(end - 1);
    if (end < this.text.length && end - start > 1 && code >= 0xd800 && code <= 0xdbff) end--;
    return this.text.slice(start, end);
  }

  /** Chars dropped from the front so far: the offset of the oldest char still kept. */
  get oldest(): number {
    this.trim();
    return this.dropped;
  }

  /** The last `lines` lines, with the cut said when older output was dropped or left out. */
  tail(lines: number): string {
    this.trim();
    const t = this.text;
    // A trailing newline ends the last line; it does not start an empty one.
    let pos = t.endsWith('\n') ? t.length - 1 : t.length;
    let start = 0;
    for (let n = 0; n < lines; n++) {
      const nl = t.lastIndexOf('\n', pos - 1);
      if (nl < 0) {
        start = 0;
        break;
      }
      pos = nl;
      start = nl + 1;
    }
    const body = t.slice(start);
    if (start > 0 || this.dropped > 0) return `[… ${this.dropped + start} earlier chars not shown …]\n${body}`;
    return body;
  }
}
