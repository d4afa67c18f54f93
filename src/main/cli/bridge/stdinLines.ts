// MCP's stdio framing for `switchboard mcp`: stdin cut into lines (one JSON-RPC message each) and handed on whole, with
// what the SDK's own reader does not do: a line too long to hold is never held whole (it is answered by the id at its
// head or tail), an empty line is skipped, and a last line without its newline is still a line.
import { MAX_REQUEST_BYTES } from '../../../shared/limits.js';

/** Where the lines go. */
export interface LineSink {
  /** One line without its line end (`\n` or `\r\n`); never empty. */
  line(bytes: Buffer): void;
  /** A line over the limit: its first and last bytes (where clients write the id), as text. */
  tooLong(head: string, tail: string): void;
}

/** What is kept of a line too long to hold: its start and its end. */
export const KEPT_BYTES = 256;
const NEWLINE = 0x0a;
const CR = 0x0d;

export class StdinLines {
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while a line over the limit is skipped: what is kept of it. */
  private cut: { head: Buffer; tail: Buffer } | undefined;

  /** `max`: the most bytes a line may have, without its line end. */
  constructor(
    private readonly sink: LineSink,
    private readonly max = MAX_REQUEST_BYTES,
  ) {}

  /** Bytes as they came from stdin. */
  push(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, from)) {
      this.add(chunk.subarray(from, nl));
      from = nl + 1;
      this.lineEnded();
    }
    if (from < chunk.length) this.add(chunk.subarray(from));
  }

  /** stdin ended: a last line without its newline is a line all the same. */
  finish(): void {
    if (this.size > 0 || this.cut) this.lineEnded();
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.cut) {
      const { head } = this.cut;
      if (head.length < KEPT_BYTES) this.cut.head = Buffer.concat([head, piece.subarray(0, KEPT_BYTES - head.length)]);
      this.cut.tail = Buffer.concat([this.cut.tail, piece.subarray(-KEPT_BYTES)]).subarray(-KEPT_BYTES);
      return;
    }
    this.size += piece.length;
    // One byte over: the line may still end in `\r\n`, whose `\r` the limit does not count.
    if (this.size <= this.max + 1) return void this.parts.push(piece);
    const all = Buffer.concat([...this.parts, piece]);
    // Copies: a view would keep the whole line's bytes alive while the rest of it is dropped.
    this.cut = { head: Buffer.from(all.subarray(0, KEPT_BYTES)), tail: Buffer.from(all.subarray(-KEPT_BYTES)) };
    this.parts = [];
  }

  private lineEnded(): void {
    const { cut, parts } = this;
    this.parts = [];
    this.size = 0;
    this.cut = undefined;
    if (cut) {
      const tail = cut.tail.at(-1) === CR ? cut.tail.subarray(0, -1) : cut.tail;
      return this.sink.tooLong(cut.head.toString('utf8'), tail.toString('utf8'));
    }
    const whole = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const line = whole.at(-1) === CR ? whole.subarray(0, -1) : whole;
    if (line.length > this.max) {
      return this.sink.tooLong(line.subarray(0, KEPT_BYTES).toString('utf8'), line.subarray(-KEPT_BYTES).toString());
    }
    // An empty line between messages is no message (MCP clients write none), not a malformed one.
    if (line.length > 0) this.sink.line(line);
  }
}
