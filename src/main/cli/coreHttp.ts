// The HTTP/1.1 client of `switchboard mcp`: POSTs to the Core's /mcp on kept-alive loopback connections, on node:net
// alone. node:http's client costs the relay a few MB (its modules, an agent, a parser and a message object per
// request) and a first request that runs its code cold, for what is here one request shape to one known server
// (Node's own HTTP server in the Core): a body of known length out; a status, headers and a body by length or in
// chunks (an event stream) back.
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';

export interface CoreResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Ends when the answer is whole; fails (an 'error') when the connection breaks before. */
  body: Readable;
}

/** A request that failed before its answer began: `reused` when it went out on a kept-alive connection. */
export type PostError = NodeJS.ErrnoException & { reused: boolean };

/** The Core's server closes a connection idle for 5 s (Node's default): one idle this long is not reused. */
const IDLE_REUSE_MS = 4000;
const MAX_HEAD_BYTES = 64 * 1024;
const CRLF = Buffer.from('\r\n');

interface Idle {
  socket: Socket;
  since: number;
  /** What listens to it while idle, taken off when it is used again. */
  gone: () => void;
}

/** How the rest of an answer's body comes: so many bytes more, in chunks, or until the connection closes. */
type BodyFraming = { left: number } | { chunk: 'size' | 'data' | 'end' | 'trailer'; left: number } | 'close';

export class CoreConnections {
  private idle: Idle[] = [];

  /** POST `body` to `url`; resolves once the answer's head is read. */
  post(url: URL, headers: Record<string, string | number>, body: Buffer): Promise<CoreResponse> {
    const fields = Object.entries({ host: url.host, ...headers, 'content-length': body.length });
    // Values come from core.json and the Core's own answers; none may start a header or a request of its own.
    if (fields.some(([, v]) => /[\r\n]/.test(String(v)))) return Promise.reject(new Error('a header holds a line end'));
    const lines = fields.map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const head = `POST ${url.pathname}${url.search} HTTP/1.1\r\n${lines}\r\n`;
    const kept = this.take();
    const socket = kept ?? connect({ host: url.hostname, port: Number(url.port) || 80, noDelay: true });
    return new Promise((resolve, reject) => {
      const exchange = new Exchange(socket, kept !== undefined, resolve, reject, (reusable) => {
        if (reusable) this.keep(socket);
        else socket.destroy();
      });
      exchange.start();
      // Head and body in one write: one segment on the loopback for most requests.
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
    });
  }

  private take(): Socket | undefined {
    for (let idle = this.idle.pop(); idle; idle = this.idle.pop()) {
      idle.socket.off('close', idle.gone).off('error', ignore);
      if (!idle.socket.destroyed && Date.now() - idle.since < IDLE_REUSE_MS) return idle.socket;
      idle.socket.destroy();
    }
    return undefined;
  }

  private keep(socket: Socket): void {
    // Closed by the Core while idle: forgotten, and its error (a reset) is nobody's.
    const idle: Idle = { socket, since: Date.now(), gone: () => (this.idle = this.idle.filter((i) => i !== idle)) };
    socket.once('close', idle.gone).on('error', ignore);
    this.idle.push(idle);
  }
}

const ignore = (): void => undefined;

/** One request's answer on one connection: its head parsed, its body passed on as it is framed. */
class Exchange {
  private pending: Buffer = Buffer.alloc(0);
  private response: CoreResponse | undefined;
  private framing: BodyFraming = 'close';
  private done = false;

  constructor(
    private readonly socket: Socket,
    private readonly reused: boolean,
    private readonly resolve: (r: CoreResponse) => void,
    private readonly reject: (e: PostError) => void,
    private readonly finished: (reusable: boolean) => void,
  ) {}

  start(): void {
    this.socket.on('data', this.onData);
    this.socket.on('error', this.onError);
    this.socket.on('close', this.onClose);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    if (!this.response && !this.readHead()) return;
    this.readBody();
  };

  private readonly onError = (err: NodeJS.ErrnoException): void => this.fail(err);

  private readonly onClose = (): void => {
    if (this.done) return;
    // Until the connection closes is the body's own end for an answer framed that way.
    if (this.response && this.framing === 'close') return this.end(false);
    this.fail(Object.assign(new Error('the Core closed the connection'), { code: 'ECONNRESET' }));
  };

  private fail(err: NodeJS.ErrnoException): void {
    if (this.done) return;
    this.done = true;
    this.detach();
    this.socket.destroy();
    if (this.response) this.response.body.destroy(err);
    else this.reject(Object.assign(err, { reused: this.reused }));
  }

  /** Reads the status line and headers once they are all here; false while they are not. */
  private readHead(): boolean {
    const end = this.pending.indexOf('\r\n\r\n');
    if (end < 0) {
      if (this.pending.length > MAX_HEAD_BYTES) this.fail(new Error('the answer of the Core has no end of its head'));
      return false;
    }
    const [statusLine = '', ...lines] = this.pending.toString('latin1', 0, end).split('\r\n');
    this.pending = this.pending.subarray(end + 4);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (!status) {
      this.fail(new Error(`not an HTTP answer: ${statusLine.slice(0, 80)}`));
      return false;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'];
    if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) this.framing = { chunk: 'size', left: 0 };
    else if (length !== undefined) this.framing = { left: Number(length) };
    else if (status === 204 || status === 304) this.framing = { left: 0 };
    const body = new Readable({ read: () => undefined });
    // A body nobody reads (a refusal passed over) may still break: that is no one's error to throw.
    body.on('error', ignore);
    this.response = { status, headers, body };
    this.resolve(this.response);
    return true;
  }

  /** Passes on what of the body has come, and ends it when it is whole. */
  private readBody(): void {
    const body = this.response!.body;
    const framing = this.framing;
    if (framing === 'close') {
      if (this.pending.length) body.push(this.pending);
      this.pending = Buffer.alloc(0);
      return;
    }
    if (!('chunk' in framing)) {
      const piece = this.pending.subarray(0, framing.left);
      this.pending = this.pending.subarray(piece.length);
      framing.left -= piece.length;
      if (piece.length) body.push(piece);
      if (framing.left === 0) this.end(this.pending.length === 0);
      return;
    }
    for (;;) {
      if (framing.chunk === 'data') {
        const piece = this.pending.subarray(0, framing.left);
        this.pending = this.pending.subarray(piece.length);
        framing.left -= piece.length;
        if (piece.length) body.push(piece);
        if (framing.left > 0) return;
        framing.chunk = 'end';
      }
      const lineEnd = this.pending.indexOf(CRLF);
      if (lineEnd < 0) return;
      const line = this.pending.toString('latin1', 0, lineEnd);
      this.pending = this.pending.subarray(lineEnd + 2);
      if (framing.chunk === 'end') framing.chunk = 'size';
      else if (framing.chunk === 'trailer') {
        if (line === '') return this.end(this.pending.length === 0);
      } else {
        const size = Number.parseInt(line, 16);
        if (!Number.isFinite(size) || size < 0) return this.fail(new Error(`a chunk of no size: ${line.slice(0, 40)}`));
        framing.left = size;
        framing.chunk = size === 0 ? 'trailer' : 'data';
      }
    }
  }

  /** The answer is whole; the connection is kept for the next request if both ends want it and nothing is left. */
  private end(clean: boolean): void {
    this.done = true;
    this.detach();
    this.response!.body.push(null);
    this.finished(clean && !/\bclose\b/i.test(this.response!.headers.connection ?? '') && !this.socket.destroyed);
  }

  private detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('error', this.onError);
    this.socket.off('close', this.onClose);
  }
}
