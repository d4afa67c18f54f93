// MCP lines: /mcp on an upgraded connection (`Upgrade: switchboard-mcp-lines`) that carries one stdio client's
// JSON-RPC messages both ways, for `switchboard mcp` (bin/mcp-relay.pl). That relay is a small Perl program because a
// Node process alone is larger than an agent's bridge may be; so all MCP work is done here, and the relay only moves
// lines and keeps what it needs if the Core goes away.
//
// Each line is answered as the POST of it would be (mcpHttp.ts's `answer`: the same hot path, Server, cancels and
// progress), within one client of its own, so a cancel on this connection reaches only this connection's calls. The
// Core writes three kinds of line, the first byte saying which:
//   `m <json>`      a message for the client (an answer, a notification): the relay writes `<json>` to stdout.
//   `a <n> [<json>]` line n (counted from 1 on this connection) was read; `<json>` is what the relay writes for its
//                   request(s) if the connection is lost before `d <n>` (a no_core answer with their exact ids).
//   `d <n>`         line n is answered.
// A refusal the POST would get as an HTTP status (a message that is not JSON-RPC, a batch too long) comes as its
// JSON-RPC error with the request's id, and nothing for a notification, as a stdio server answers. When its client's
// stdin ends the relay sends an empty line (then half-closes): what is running is still answered, then the Core closes.
// A connection that ends without it, or drops, aborts what it asked, as a dropped POST does.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { MAX_FILE_CONTENT_CHARS, MAX_REQUEST_BYTES, mib } from '../../../shared/limits.js';
import { afterLargeRequest } from '../afterLargeRequest.js';
import { jsonError, type McpClient, type McpResponse } from './mcpResponse.js';

/** The Upgrade header's token that asks for this connection. */
export const MCP_LINES_PROTOCOL = 'switchboard-mcp-lines';

/** What a line is answered by: mcpHttp.ts's McpHttp.answer. */
export type AnswerMessage = (raw: unknown, client: McpClient, res: McpResponse) => Promise<void>;

const NEWLINE = 0x0a;
/** What is kept of a line too long to hold: its start and its end, where clients write the request's id. */
const KEPT_BYTES = 256;

type Id = string | number;

/** The id a too-long line was sent with, from its first or last bytes (where clients write it); null if not there. */
function idOfCut(head: string, tail: string): Id | null {
  // Only where it can be the message's own id: first after `{` (and jsonrpc), or last before the closing `}`.
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
  const found =
    new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}\s*,`).exec(head)?.[1] ??
    new RegExp(String.raw`,\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail)?.[1];
  return found === undefined ? null : (JSON.parse(found) as Id);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The id of `message` when it is a request (a method and an id), else undefined (a notification, not JSON-RPC). */
function requestId(message: unknown): Id | undefined {
  if (!isObject(message) || typeof message.method !== 'string') return undefined;
  const { id } = message;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** A failure said to the request `message` is: a tool error for a tool call (the model reads it), else an error. */
function failureAnswer(message: unknown, id: Id, text: string): object {
  return isObject(message) && message.method === 'tools/call'
    ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
    : { jsonrpc: '2.0', id, error: { code: -32000, message: text } };
}

/** What the relay says for the requests of `raw` if the connection is lost while they run; undefined for none. */
function lostAnswer(raw: unknown, text: string): string | undefined {
  const answerOf = (message: unknown): object | undefined => {
    const id = requestId(message);
    return id === undefined ? undefined : failureAnswer(message, id, text);
  };
  if (!Array.isArray(raw)) {
    const answer = answerOf(raw);
    return answer && JSON.stringify(answer);
  }
  const answers = raw.map(answerOf).filter((a) => a !== undefined);
  return answers.length > 0 ? JSON.stringify(answers) : undefined;
}

/**
 * The JSON-RPC error a refused POST's body holds, for the line it refused: with the request's id (the body says null
 * when it could not read the message), and nothing for a notification, which nobody waits on.
 */
function refusal(body: string, raw: unknown): string | undefined {
  let error: unknown;
  try {
    error = (JSON.parse(body) as { error?: unknown }).error;
  } catch {
    // not JSON: said as the Core's own failure below
  }
  if (!isObject(error)) error = { code: -32603, message: body.split('\n')[0] || 'internal error' };
  if (isObject(raw) && typeof raw.method === 'string' && raw.id === undefined) return undefined;
  const id = isObject(raw) && (typeof raw.id === 'string' || typeof raw.id === 'number') ? raw.id : null;
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

/** One line's answer, written as the lines a POST's response would hold (its JSON, or its events' data). */
class LineResponse implements McpResponse {
  headersSent = false;
  destroyed = false;
  private status = 0;
  private events = false;
  private closed = false;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly session: LineSession,
    private readonly raw: unknown,
    private readonly closing: (res: LineResponse) => void,
  ) {}

  writeHead(status: number, headers?: Record<string, string | number>): this {
    this.status = status;
    this.events = headers?.['content-type'] === 'text/event-stream';
    this.headersSent = true;
    return this;
  }

  write(chunk: string): boolean {
    if (this.events) this.event(chunk);
    return true;
  }

  end(chunk?: string | Buffer): this {
    if (this.closed) return this;
    if (!this.headersSent) this.writeHead(200);
    if (chunk !== undefined && chunk.length > 0) {
      if (this.events) this.event(chunk.toString());
      else if (this.status === 200) this.session.send(chunk);
      else if (this.status >= 400) {
        const error = refusal(chunk.toString(), this.raw);
        if (error) this.session.send(error);
      }
    }
    this.finish();
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    this.finish();
    return this;
  }

  once(_event: 'close', listener: () => void): this {
    this.listeners.push(listener);
    return this;
  }

  /** One server-sent event the handler wrote (`event: message`, then one `data:` line of JSON). */
  private event(chunk: string): void {
    const data = /^event: message\ndata: (.*)\n\n$/s.exec(chunk)?.[1];
    if (data !== undefined) this.session.send(data);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.closing(this);
    // After the caller's own end(), as node:http emits a response's close.
    process.nextTick(() => {
      for (const listener of this.listeners.splice(0)) listener();
    });
  }
}

/** One upgraded connection: its lines read, each answered, and the connection's end. */
export class LineSession {
  private readonly client: McpClient = { id: `lines-${randomUUID()}` };
  /** Lines read (the `n` of `a` and `d`). */
  private count = 0;
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while a line over the limit is skipped: what is kept of it. */
  private cut: { head: Buffer; tail: Buffer } | undefined;
  private readonly running = new Set<LineResponse>();
  /** No more lines come (the relay half-closed, or the Core stops): close once the running ones are answered. */
  private closing = false;

  constructor(
    private readonly socket: Socket,
    private readonly answer: AnswerMessage,
    /** What a request lost with the connection is answered with (it names the Core's address). */
    private readonly lostText: string,
  ) {}

  /** Start reading; `head` is what came with the upgrade request. */
  start(head: Buffer): void {
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    // A client's end without its end line is a relay that died (the kernel closed its socket), not one whose stdin
    // ended: what it asked is aborted, as when the connection drops.
    this.socket.once('end', () => {
      if (!this.closing) this.socket.destroy();
    });
    this.socket.once('close', () => {
      // Dropped: what it asked is aborted (its commands killed, its approvals withdrawn), as for a dropped POST.
      for (const res of [...this.running]) res.destroy();
    });
    if (head.length > 0) this.read(head);
  }

  /** No more lines are taken: what is running is answered, then the connection closes (the Core's stop). */
  stop(): void {
    if (this.closing) return;
    this.closing = true;
    this.socket.pause();
    this.endWhenIdle();
  }

  /** The connection is cut (the Core's last step of shutting down): the relay answers what was running. */
  drop(): void {
    this.socket.destroy();
  }

  /** A message line for the client (`m`). */
  send(json: string | Buffer): void {
    if (this.socket.destroyed) return;
    this.socket.cork();
    this.socket.write('m ');
    this.socket.write(json);
    this.socket.write('\n');
    this.socket.uncork();
  }

  private read(chunk: Buffer): void {
    if (this.closing) return;
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, from)) {
      this.add(chunk.subarray(from, nl));
      from = nl + 1;
      this.lineEnded();
      // The end line (or the Core's stop): what follows it is not read.
      if (this.closing) return;
    }
    if (from < chunk.length) this.add(chunk.subarray(from));
  }

  private add(piece: Buffer): void {
    if (this.cut) {
      this.cut.tail = Buffer.concat([this.cut.tail, piece.subarray(-KEPT_BYTES)]).subarray(-KEPT_BYTES);
      return;
    }
    this.size += piece.length;
    if (this.size <= MAX_REQUEST_BYTES) return void this.parts.push(piece);
    const all = Buffer.concat([...this.parts, piece]);
    // Copies: a view would keep the whole line's bytes alive while the rest of it is dropped.
    this.cut = { head: Buffer.from(all.subarray(0, KEPT_BYTES)), tail: Buffer.from(all.subarray(-KEPT_BYTES)) };
    this.parts = [];
  }

  private lineEnded(): void {
    const { cut, size } = this;
    const whole = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    this.cut = undefined;
    if (cut) return this.tooLong(cut.head.toString('utf8'), cut.tail.toString('utf8').replace(/\r$/, ''));
    const line = whole[whole.length - 1] === 0x0d ? whole.subarray(0, -1) : whole;
    // The relay sends no empty line of its client's (MCP's stdio skips them): one says its stdin ended.
    if (line.length > 0) this.take(line, size);
    else this.stop();
  }

  private take(line: Buffer, size: number): void {
    const n = ++this.count;
    let parsed: { raw: unknown } | undefined;
    try {
      parsed = { raw: JSON.parse(line.toString('utf8')) };
    } catch {
      // Not JSON: answered below with JSON-RPC's parse error, as /mcp answers such a body.
    }
    const raw = parsed?.raw;
    const lost = lostAnswer(raw, this.lostText);
    this.frame(lost === undefined ? `a ${n}` : `a ${n} ${lost}`);
    const res = new LineResponse(this, raw, (done) => {
      this.running.delete(done);
      if (lost !== undefined) this.frame(`d ${n}`);
      afterLargeRequest(size);
      this.endWhenIdle();
    });
    this.running.add(res);
    if (parsed) void this.answer(raw, this.client, res);
    else jsonError(res, 400, -32700, 'Parse error: Invalid JSON');
  }

  /** A line over the limit: answered as /mcp answers a body over it (413), and never held whole. */
  private tooLong(head: string, tail: string): void {
    this.frame(`a ${++this.count}`);
    this.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: idOfCut(head, tail),
        error: {
          code: -32000,
          message:
            `Payload Too Large: the message is over the ${mib(MAX_REQUEST_BYTES)} a request may be; write a large ` +
            `file in parts of at most ${mib(MAX_FILE_CONTENT_CHARS)}, and put a long command in a file`,
        },
      }),
    );
  }

  private frame(line: string): void {
    if (!this.socket.destroyed) this.socket.write(`${line}\n`);
  }

  private endWhenIdle(): void {
    if (!this.closing || this.running.size > 0 || this.socket.destroyed) return;
    // Closed whole once the last answer is out: a relay still writing (the Core's stop came first) gets an error at
    // once, rather than writing into a connection nobody reads.
    this.socket.end(() => this.socket.destroy());
  }
}
