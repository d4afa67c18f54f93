// A WebSocket client with the part of `ws`'s interface transport/wsLink.ts uses, put in place of `ws` in the CLI's
// bundles (scripts/build.mjs): a command that makes one call to the Core on loopback (ws://, no compression) does not
// load ws and, with it, Node's TLS, HTTPS and zlib (what that saves: README, Speed, P8). Measured (whole processes,
// medians of 12, 2026-12): a process that loads ws as the bundle would holds 44.0 MB at its peak and spends 152 ms of
// CPU; one that loads this file 41.4 MB and 128 ms. `switchboard call` is 48 MB against a goal of 50 MB: with ws it
// would not meet it, and every call would start 24 ms later. Kept to what wsLink needs; its tests run it against ws's
// server (tinyWebSocket.test.ts).
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';

/** RFC 6455 §1.3: the server proves it read our key by hashing it with this. */
const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;
/** A close frame without a code, and a connection that ended without any close frame (RFC 6455 §7.1.5). */
const NO_STATUS = 1005;
const ABNORMAL = 1006;

export interface TinyWebSocketOptions {
  headers?: Record<string, string>;
  handshakeTimeout?: number;
}

/**
 * Events as ws names them: 'open'; 'unexpected-response' (undefined, { statusCode }) when the server answers the
 * upgrade with another status; 'error' (Error) while connecting, or after it when someone listens; 'message'
 * (Buffer, isBinary); 'close' (code), once, last.
 */
export default class TinyWebSocket extends EventEmitter {
  private readonly socket: Socket;
  private readonly key = randomBytes(16).toString('base64');
  private readonly handshakeTimer: NodeJS.Timeout | undefined;
  private state: 'connecting' | 'open' | 'closing' | 'closed' = 'connecting';
  private input: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentsBinary = false;
  private closeCode = ABNORMAL;
  private closeEmitted = false;

  constructor(address: string, opts: TinyWebSocketOptions = {}) {
    super();
    const url = new URL(address);
    if (url.protocol !== 'ws:') throw new SyntaxError(`the CLI's WebSocket speaks ws:// only, not ${url.protocol}`);
    const headers = {
      Host: url.host,
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': this.key,
      ...opts.headers,
    };
    const request = `GET ${url.pathname}${url.search} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
    this.socket = connect({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 80) });
    this.socket.setNoDelay(true);
    if (opts.handshakeTimeout)
      this.handshakeTimer = setTimeout(
        () => this.fail(new Error('Opening handshake has timed out')),
        opts.handshakeTimeout,
      );
    this.socket.once('connect', () => this.socket.write(request));
    this.socket.on('data', (chunk: Buffer) => this.receive(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.finish());
  }

  send(data: string | Buffer): void {
    // As ws does with no callback: a message after the close is dropped.
    if (this.state !== 'open') return;
    this.write(typeof data === 'string' ? OP.text : OP.binary, typeof data === 'string' ? Buffer.from(data) : data);
  }

  close(): void {
    if (this.state === 'connecting') {
      this.fail(new Error('WebSocket was closed before the connection was established'));
    } else if (this.state === 'open') {
      this.state = 'closing';
      this.write(OP.close, Buffer.alloc(0));
      // The server answers with its close frame and ends the connection; one that does not is not waited for.
      setTimeout(() => this.socket.destroy(), 1000).unref();
    }
  }

  private receive(chunk: Buffer): void {
    this.input = this.input.length ? Buffer.concat([this.input, chunk]) : chunk;
    if (this.state === 'connecting') {
      const end = this.input.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.input.subarray(0, end).toString('latin1');
      this.input = this.input.subarray(end + 4);
      if (!this.upgraded(head)) return;
      // Frames that came with the answer are read on the next turn, as ws does: whoever awaited 'open' listens by then.
      if (this.input.length) setImmediate(() => this.receive(Buffer.alloc(0)));
      return;
    }
    while (this.state === 'open' || this.state === 'closing') {
      const frame = this.nextFrame();
      if (!frame) return;
      this.onFrame(frame.fin, frame.opcode, frame.payload);
    }
  }

  /** Whether the server's answer `head` (status line and headers) upgraded the connection; otherwise it is ended. */
  private upgraded(head: string): boolean {
    const [statusLine = '', ...lines] = head.split('\r\n');
    const statusCode = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
    if (statusCode !== 101) {
      clearTimeout(this.handshakeTimer);
      if (this.listenerCount('unexpected-response') > 0) {
        this.state = 'closing';
        this.emit('unexpected-response', undefined, { statusCode });
        this.socket.destroy();
      } else {
        this.fail(new Error(`Unexpected server response: ${statusCode}`));
      }
      return false;
    }
    const accept = lines.find((l) => /^sec-websocket-accept:/i.test(l))?.replace(/^[^:]*:\s*/, '');
    if (
      accept !==
      createHash('sha1')
        .update(this.key + HANDSHAKE_GUID)
        .digest('base64')
    ) {
      this.fail(new Error('Invalid Sec-WebSocket-Accept header'));
      return false;
    }
    clearTimeout(this.handshakeTimer);
    this.state = 'open';
    this.emit('open');
    return true;
  }

  /** The next whole frame in the input, taken off it; undefined until all of it has arrived. */
  private nextFrame(): { fin: boolean; opcode: number; payload: Buffer } | undefined {
    const b = this.input;
    if (b.length < 2) return undefined;
    if (b[1]! & 0x80) return this.protocolError('a server frame is masked');
    let length = b[1]! & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return undefined;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return undefined;
      const long = b.readBigUInt64BE(2);
      if (long > BigInt(Number.MAX_SAFE_INTEGER)) return this.protocolError('a frame is too long');
      length = Number(long);
      offset = 10;
    }
    if (b.length < offset + length) return undefined;
    // Copied out: the rest of the input (and the Buffer it came in) must not be kept alive by a message.
    const payload = Buffer.from(b.subarray(offset, offset + length));
    this.input = b.subarray(offset + length);
    return { fin: (b[0]! & 0x80) !== 0, opcode: b[0]! & 0x0f, payload };
  }

  private onFrame(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case OP.text:
      case OP.binary:
        if (fin) this.emit('message', payload, opcode === OP.binary);
        else {
          this.fragments = [payload];
          this.fragmentsBinary = opcode === OP.binary;
        }
        return;
      case OP.continuation:
        this.fragments.push(payload);
        if (fin) {
          const message = Buffer.concat(this.fragments);
          this.fragments = [];
          this.emit('message', message, this.fragmentsBinary);
        }
        return;
      case OP.close:
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : NO_STATUS;
        if (this.state === 'open') this.write(OP.close, payload.subarray(0, 2));
        this.state = 'closing';
        this.socket.end();
        return;
      case OP.ping:
        this.write(OP.pong, payload);
        return;
      case OP.pong:
        return;
      default:
        this.protocolError(`unknown opcode ${opcode}`);
    }
  }

  /** One frame, masked as every client frame must be (RFC 6455 §5.3). */
  private write(opcode: number, payload: Buffer): void {
    const mask = randomBytes(4);
    const length = payload.length;
    const head = Buffer.alloc(length < 126 ? 6 : length < 65536 ? 8 : 14);
    head[0] = 0x80 | opcode;
    if (length < 126) head[1] = 0x80 | length;
    else if (length < 65536) {
      head[1] = 0x80 | 126;
      head.writeUInt16BE(length, 2);
    } else {
      head[1] = 0x80 | 127;
      head.writeBigUInt64BE(BigInt(length), 2);
    }
    mask.copy(head, head.length - 4);
    const masked = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i++) masked[i] = payload[i]! ^ mask[i & 3]!;
    this.socket.write(Buffer.concat([head, masked]));
  }

  private protocolError(why: string): undefined {
    this.closeCode = 1002;
    this.fail(new Error(`invalid frame from the server: ${why}`));
    return undefined;
  }

  /** A failure: reported while connecting (or to whoever listens), then the connection is dropped. */
  private fail(err: Error): void {
    if (this.state === 'closed') return;
    clearTimeout(this.handshakeTimer);
    const connecting = this.state === 'connecting';
    this.state = 'closing';
    if (connecting || this.listenerCount('error') > 0) this.emit('error', err);
    this.socket.destroy();
  }

  private finish(): void {
    // Ended before the server answered the upgrade: an error, worded as Node's HTTP client (which ws uses) words it.
    if (this.state === 'connecting') this.fail(new Error('socket hang up'));
    clearTimeout(this.handshakeTimer);
    this.state = 'closed';
    if (this.closeEmitted) return;
    this.closeEmitted = true;
    this.emit('close', this.closeCode);
  }
}
