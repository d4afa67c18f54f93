// The Core's end of a sandbox's network path: a proxy on a unix socket bound into one sandbox only, speaking HTTP
// (CONNECT and absolute-form requests) and SOCKS5, that judges each destination by the sandbox's rules (netRules.ts)
// and makes the outbound connection itself. The sandbox's end is netBridge.ts. The protocols are parsed in
// proxyHttp.ts and proxySocks.ts, the way out is proxyOutbound.ts; this file is the server and each client's exchange.
import { chmodSync, lstatSync, mkdtempSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { splice } from './netBridge.js';
import type { NetRules } from './netRules.js';
import { errorCode, Outbound, type Outcome } from './proxyOutbound.js';
import {
  type Destination,
  type HttpHead,
  hostPort,
  parseAbsoluteTarget,
  parseAuthority,
  parseHttpHead,
  originRequest,
  validHost,
} from './proxyHttp.js';
import { parseSocksGreeting, parseSocksRequest, SOCKS, socksReply } from './proxySocks.js';

export { destinationVerdict, type NetRules } from './netRules.js';
// The protocols' pure parts, as this module exported them before they had files of their own.
export {
  MAX_HEAD_BYTES,
  hostPort,
  originRequest,
  parseAbsoluteTarget,
  parseAuthority,
  parseHttpHead,
  validHost,
  type Destination,
  type HeadParse,
  type HttpHead,
} from './proxyHttp.js';
export {
  formatIpv6,
  parseSocksGreeting,
  parseSocksRequest,
  SOCKS,
  socksReply,
  type SocksGreeting,
  type SocksRequest,
} from './proxySocks.js';
export { machineAddresses } from './proxyOutbound.js';

/** How long a client has to send its whole request head or SOCKS5 greeting and request. */
const HEAD_TIMEOUT_MS = 10_000;
/** After an error reply, how long the client may take to read it and close before its connection is cut. */
const LINGER_MS = 5_000;
/** sun_path holds 108 bytes with the closing NUL. */
const UNIX_PATH_MAX = 107;

export interface NetProxyOptions {
  /** Refusals, failures and malformed requests, one line each. */
  log?: (line: string) => void;
  /** How names resolve: the Core's dns.lookup by default (tests resolve names of their own). */
  lookup?: (host: string) => Promise<string[]>;
  /** This machine's own addresses, asked at each connection: os.networkInterfaces() by default. */
  hostAddresses?: () => readonly string[];
  /** HEAD_TIMEOUT_MS by default (tests shorten it). */
  headTimeoutMs?: number;
}

/** A SOCKS4 client's "request rejected" (it gets one line in its own protocol instead of an HTTP error). */
const SOCKS4_REJECTED = Buffer.from([0, 0x5b, 0, 0, 0, 0, 0, 0]);

/** Removes a socket file left by an earlier Core; anything else at the path is an error, never removed. */
function removeStale(path: string): void {
  try {
    if (!lstatSync(path).isSocket()) {
      throw new Error(`sandbox network proxy: ${path} exists and is not a socket; remove it or pick another path`);
    }
  } catch (e) {
    if (errorCode(e) === 'ENOENT') return;
    throw e;
  }
  unlinkSync(path);
}

/**
 * The proxy one sandboxed identity's traffic leaves through. Each connection on the unix socket is HTTP or SOCKS5
 * (told apart by its first byte); every destination is judged by destinationVerdict against the address it resolves
 * to, and the connection is made to that very address (to 127.0.0.1 for an allowed local port).
 */
export class NetProxy {
  private readonly sockets = new Set<Socket>();
  private closing: Promise<void> | undefined;
  private readonly log: (line: string) => void;
  /** Resolving, judging and connecting (proxyOutbound.ts). */
  private readonly out: Outbound;
  private readonly headTimeoutMs: number;

  private constructor(
    private readonly server: Server,
    private readonly socketPath: string,
    private readonly inode: number,
    rules: NetRules,
    opts: NetProxyOptions,
  ) {
    this.log =
      opts.log ??
      (() => {
        // no log asked for
      });
    this.out = new Outbound(rules, {
      log: this.log,
      lookup: opts.lookup,
      hostAddresses: opts.hostAddresses,
      track: (s) => this.track(s),
    });
    this.headTimeoutMs = opts.headTimeoutMs ?? HEAD_TIMEOUT_MS;
    server.on('connection', (s) => this.accept(s));
    server.on('error', (e) => this.log(`sandbox network proxy: ${e.message}`));
  }

  /**
   * Answers on a unix socket at `socketPath` (mode 0600; a stale socket file there is removed first). The socket is
   * bound in a fresh 0700 folder beside it and renamed into place, so it is never reachable with looser modes.
   */
  static async listen(socketPath: string, rules: NetRules, opts: NetProxyOptions = {}): Promise<NetProxy> {
    const dir = dirname(socketPath);
    const tempLength = Buffer.byteLength(join(dir, '.npXXXXXX', 's'));
    if (Buffer.byteLength(socketPath) > UNIX_PATH_MAX || tempLength > UNIX_PATH_MAX) {
      throw new Error(
        `sandbox network proxy: ${socketPath} is too long for a unix socket (at most ${UNIX_PATH_MAX - 12} bytes ` +
          'for the folder and 11 for the name); use a shorter folder',
      );
    }
    removeStale(socketPath);
    const temp = mkdtempSync(join(dir, '.np'));
    const server = createServer({ allowHalfOpen: true });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(join(temp, 's'), () => {
          server.off('error', reject);
          resolve();
        });
      });
      chmodSync(join(temp, 's'), 0o600);
      renameSync(join(temp, 's'), socketPath);
      return new NetProxy(server, socketPath, lstatSync(socketPath).ino, rules, opts);
    } catch (e) {
      server.close();
      throw e;
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  }

  /** New rules, for connections made from now on (open ones keep going). */
  setRules(rules: NetRules): void {
    this.out.rules = rules;
  }

  /** Destinations asked for (CONNECT, a plain HTTP request, a SOCKS5 CONNECT), refused ones included. */
  get requests(): number {
    return this.out.counts.requests;
  }

  get refused(): number {
    return this.out.counts.refused;
  }

  /** The latest refusals, oldest first, each once: "127.0.0.1:5432 (this machine's loopback; add 5432 to …)". */
  recentRefusals(): string[] {
    return [...this.out.refusals];
  }

  /** Stops listening, ends every connection, and removes the socket file (unless another proxy's replaced it). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const s of this.sockets) s.destroy();
      await closed;
      try {
        if (lstatSync(this.socketPath).ino === this.inode) unlinkSync(this.socketPath);
      } catch {
        // already gone: nothing to remove
      }
    })();
    return this.closing;
  }

  /** A bug met while serving one client: logged, and that client alone is cut off (never a throw out of the Core). */
  private unexpected(client: Socket): (e: unknown) => void {
    return (e) => {
      this.log(`sandbox network proxy: unexpected ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      client.destroy();
    };
  }

  private track(s: Socket): Socket {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => {
      // each use handles its own errors; this one keeps a late error from being an uncaught throw
    });
    return s;
  }

  /** Reads the first bytes of a client (a sandbox's bridge) until its request is whole, then serves it. */
  private accept(client: Socket): void {
    this.track(client);
    if (this.closing) {
      client.destroy();
      return;
    }
    let buf = Buffer.alloc(0);
    let stage: 'first' | 'http' | 'greeting' | 'request' = 'first';
    const stop = () => {
      clearTimeout(timer);
      client.off('data', onData);
      client.off('end', onEnd);
      client.pause();
    };
    const giveUp = (why: string) => {
      stop();
      if (stage === 'http') this.httpError(client, why === 'timed out' ? 408 : 400, `request ${why}`);
      else client.destroy();
    };
    const timer = setTimeout(() => giveUp('timed out'), this.headTimeoutMs);
    const onEnd = () => giveUp('ended before it was whole');
    const step = () => {
      if (stage === 'first') {
        if (buf[0] === 4) {
          stop();
          this.log('sandbox network proxy: a SOCKS4 request; only SOCKS5 is served (use socks5h://)');
          return this.replyAndLinger(client, SOCKS4_REJECTED);
        }
        stage = buf[0] === 5 ? 'greeting' : 'http';
      }
      if (stage === 'http') {
        const head = parseHttpHead(buf);
        if (head.state === 'more') return;
        stop();
        if (head.state === 'bad') return this.httpError(client, head.status, head.why);
        return this.serveHttp(client, head, buf.subarray(head.length));
      }
      if (stage === 'greeting') {
        const greeting = parseSocksGreeting(buf);
        if (greeting.state === 'more') return;
        if (greeting.state === 'bad') {
          stop();
          return client.destroy();
        }
        if (!greeting.noAuth) {
          stop();
          return this.replyAndLinger(client, Buffer.from([5, 0xff]));
        }
        client.write(Buffer.from([5, 0]));
        buf = buf.subarray(greeting.length);
        stage = 'request';
      }
      const request = parseSocksRequest(buf);
      if (request.state === 'more') return;
      stop();
      if (request.state === 'bad') return this.replyAndLinger(client, socksReply(request.reply));
      if (request.command !== 1) return this.replyAndLinger(client, socksReply(SOCKS.commandNotSupported));
      this.serveSocks(client, request.dest, buf.subarray(request.length));
    };
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]); // bounded: an HTTP head by MAX_HEAD_BYTES, a SOCKS5 handshake by its format
      try {
        step();
      } catch (e) {
        stop();
        this.unexpected(client)(e);
      }
    };
    client.on('data', onData);
    client.on('end', onEnd);
  }

  private serveHttp(client: Socket, head: HttpHead, body: Buffer): void {
    let dest: Destination | undefined;
    let first: string | undefined;
    if (head.method === 'CONNECT') {
      dest = parseAuthority(head.target);
      if (!dest) return this.httpError(client, 400, 'CONNECT needs host:port');
    } else {
      const t = parseAbsoluteTarget(head.target);
      if ('error' in t) return this.httpError(client, 400, t.error);
      dest = t.dest;
      first = originRequest(head, t.authority, t.path);
    }
    const d = dest;
    void this.open(client, d)
      .then((outcome) => {
        if (outcome.kind === 'refused') {
          return this.httpError(client, 403, `${hostPort(d)} refused: ${outcome.why}`, [
            `X-Switchboard-Refused: ${outcome.why}`,
          ]);
        }
        if (outcome.kind === 'failed') return this.httpError(client, 502, `${hostPort(d)} unreachable: ${outcome.why}`);
        const upstream = outcome.socket;
        if (first === undefined) client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        else upstream.write(first);
        if (body.length > 0) upstream.write(body);
        splice(client, upstream, this.log, `sandbox network ${hostPort(d)}`);
      })
      .catch(this.unexpected(client));
  }

  private serveSocks(client: Socket, dest: Destination, rest: Buffer): void {
    if (!validHost(dest.host)) {
      this.log(`sandbox network proxy: malformed SOCKS5 host ${JSON.stringify(dest.host.slice(0, 80))}`);
      return this.replyAndLinger(client, socksReply(SOCKS.generalFailure));
    }
    void this.open(client, dest)
      .then((outcome) => {
        if (outcome.kind === 'refused') return this.replyAndLinger(client, socksReply(SOCKS.notAllowed));
        if (outcome.kind === 'failed') return this.replyAndLinger(client, socksReply(outcome.socks));
        client.write(socksReply(SOCKS.succeeded));
        if (rest.length > 0) outcome.socket.write(rest);
        splice(client, outcome.socket, this.log, `sandbox network ${hostPort(dest)}`);
      })
      .catch(this.unexpected(client));
  }

  /**
   * Resolves, judges and connects: each address the name resolves to is judged, and the first allowed one that
   * answers is used. Never rejects. A client gone meanwhile gets nothing, and the connection made for it is closed.
   */
  private async open(client: Socket, dest: Destination): Promise<Outcome> {
    this.out.counts.requests++;
    const outcome = await this.out
      .connectChecked(dest)
      .catch((e: unknown): Outcome => ({ kind: 'failed', why: String(e), socks: SOCKS.generalFailure }));
    if (outcome.kind === 'failed') this.log(`sandbox network: ${hostPort(dest)} unreachable: ${outcome.why}`);
    if (client.destroyed || this.closing) {
      if (outcome.kind === 'ok') outcome.socket.destroy();
      return { kind: 'failed', why: 'the client went away', socks: SOCKS.generalFailure };
    }
    return outcome;
  }

  /** One error response, then the connection closes (after the client reads it, or LINGER_MS). */
  private httpError(client: Socket, status: number, message: string, headers: string[] = []): void {
    if (status !== 403) this.log(`sandbox network proxy: ${status} ${message}`);
    const body = `switchboard sandbox: ${message}\n`;
    const head = [
      `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
      'Content-Type: text/plain; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      ...headers,
    ];
    this.replyAndLinger(client, Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`));
  }

  private replyAndLinger(client: Socket, reply: Buffer): void {
    if (client.destroyed) return;
    client.end(reply);
    client.resume(); // read and drop what else it sends, so its end arrives and the socket closes
    const timer = setTimeout(() => client.destroy(), LINGER_MS);
    client.once('close', () => clearTimeout(timer));
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
};
