// The two framings `switchboard mcp` carries messages between: MCP's stdio (one JSON-RPC message a line) and the
// bodies of Streamable HTTP (one JSON document, or server-sent events whose data is one message each).
import type { Readable } from 'node:stream';

const NEWLINE = 0x0a;
/** What is kept of a line too long to hold: its start and its end, where clients write the request's id. */
const KEPT_BYTES = 256;

export interface LineSink {
  /** One line, without its line end (`\n` or `\r\n`); empty lines are skipped, as the SDK's stdio skips them. */
  line(bytes: Buffer): void;
  /** A line over the limit, dropped as it came without being held: its first and last bytes, to find its request. */
  tooLong(head: string, tail: string): void;
  end(): void;
}

/** Feed `input` to `sink` a line at a time; a line longer than `maxBytes` is never held whole. */
export function readLines(input: Readable, maxBytes: number, sink: LineSink): void {
  let parts: Buffer[] = [];
  let size = 0;
  let head: Buffer | undefined;
  let tail: Buffer | undefined;
  const add = (piece: Buffer): void => {
    if (tail) {
      tail = Buffer.concat([tail, piece.subarray(-KEPT_BYTES)]).subarray(-KEPT_BYTES);
      return;
    }
    size += piece.length;
    if (size <= maxBytes) return void parts.push(piece);
    const all = Buffer.concat([...parts, piece]);
    // Copies: a view would keep the whole line's bytes alive while the rest of it is dropped.
    head = Buffer.from(all.subarray(0, KEPT_BYTES));
    tail = Buffer.from(all.subarray(-KEPT_BYTES));
    parts = [];
  };
  input.on('data', (chunk: Buffer) => {
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, from)) {
      add(chunk.subarray(from, nl));
      from = nl + 1;
      if (tail) sink.tooLong(head!.toString('utf8'), tail.toString('utf8').replace(/\r$/, ''));
      else {
        const whole = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
        const line = whole[whole.length - 1] === 0x0d ? whole.subarray(0, -1) : whole;
        if (line.length > 0) sink.line(line);
      }
      parts = [];
      size = 0;
      head = tail = undefined;
    }
    if (from < chunk.length) add(chunk.subarray(from));
  });
  // What follows the last line end is not a whole message: the SDK's stdio drops it too.
  input.once('end', () => sink.end());
}

/**
 * The data of each server-sent event of `body`, in order (the Core sends one JSON-RPC message an event). Resolves at
 * the stream's end; rejects when it ends early (the Core went away).
 */
export function readEvents(body: Readable, onData: (data: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending = '';
    let data: string[] = [];
    body.setEncoding('utf8');
    body.on('data', (text: string) => {
      // Only the new text is searched for a line end: an event of many MB comes in many pieces.
      let from = pending.length;
      pending += text;
      for (let nl = pending.indexOf('\n', from); nl >= 0; nl = pending.indexOf('\n', from)) {
        const line = pending.slice(0, nl).replace(/\r$/, '');
        pending = pending.slice(nl + 1);
        from = 0;
        if (line === '') {
          // A blank line ends an event; one without data (a comment, a keep-alive) says nothing.
          if (data.length) onData(data.join('\n'));
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
        // event:, id:, retry: and comments do not change what is relayed.
      }
    });
    body.once('end', resolve);
    body.once('error', reject);
    // A close before the end: the connection was lost mid-answer.
    body.once('close', () => reject(new Error('the answer stopped short')));
  });
}

/** A body whole, as the bytes it came in. */
export function readBody(body: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    body.once('error', reject);
    // A close before the end: the connection was lost mid-answer.
    body.once('close', () => reject(new Error('the answer stopped short')));
  });
}

/**
 * One message as one stdio line. The Core's JSON has no line breaks (JSON.stringify writes none), so its bytes go out
 * as they came; a message that has them is written again without.
 */
export function asLine(message: Buffer | string): Buffer {
  const bytes = typeof message === 'string' ? Buffer.from(message) : message;
  const flat = bytes.includes(NEWLINE) ? Buffer.from(JSON.stringify(JSON.parse(bytes.toString('utf8')))) : bytes;
  return Buffer.concat([flat, Buffer.from('\n')]);
}
