// The Core's end of a sandbox's network path: a proxy on a unix socket bound into one sandbox only, speaking HTTP
// (CONNECT and absolute-form requests) and SOCKS5, that judges each destination by the sandbox's rules (netRules.ts)
// and makes the outbound connection itself. The sandbox's end is netBridge.ts.
import { lookup as dnsLookup } from 'node:dns/promises';
import { chmodSync, lstatSync, mkdtempSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { connect, createServer, isIP, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { dirname, join } from 'node:path';
import { splice } from './netBridge.js';
import { addressKind, destinationVerdict, type NetRules, parseIp, THIS_MACHINE } from './netRules.js';

export { destinationVerdict, type NetRules } from './netRules.js';

/** How long a client has to send its whole request head or SOCKS5 greeting and request. */
const HEAD_TIMEOUT_MS = 10_000;
/** The largest request head (or SOCKS5 handshake) read; more is refused (431). */
export const MAX_HEAD_BYTES = 32 * 1024;
/** How long one outbound connection may take to open. */
const CONNECT_TIMEOUT_MS = 15_000;
/** After an error reply, how long the client may take to read it and close before its connection is cut. */
const LINGER_MS = 5_000;
/** How many refusals recentRefusals() keeps (for the sandbox's note). */
const RECENT_REFUSALS = 20;
/** sun_path holds 108 bytes with the closing NUL. */
const UNIX_PATH_MAX = 107;

// ---- the protocols, parsed (pure) ----

export type Destination = { host: string; port: number };
export interface HttpHead {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  /** Bytes of the head, its blank line included: what follows is the body. */
  length: number;
}
export type HeadParse =
  | { state: 'more' }
  | { state: 'bad'; status: number; why: string }
  | ({ state: 'ok' } & HttpHead);

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const REQUEST_LINE = new RegExp(`^(${TOKEN}) (\\S+) HTTP/(1\\.[01])$`);
const HEADER_LINE = new RegExp(`^(${TOKEN}):[ \\t]*(.*?)[ \\t]*$`);
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** An HTTP/1.x request head from the bytes received so far: more needed, malformed (with a status), or parsed. */
export function parseHttpHead(buf: Buffer, max = MAX_HEAD_BYTES): HeadParse {
  const bad = (status: number, why: string): HeadParse => ({ state: 'bad', status, why });
  const first = buf[0];
  if (first !== undefined && !/[A-Za-z]/.test(String.fromCharCode(first))) return bad(400, 'not an HTTP request');
  const end = buf.indexOf('\r\n\r\n');
  if ((end < 0 && buf.length > max) || end + 4 > max) return bad(431, `request head over ${max} bytes`);
  const lineEnd = buf.indexOf('\r\n');
  const requestLine = buf.subarray(0, lineEnd < 0 ? buf.length : lineEnd).toString('latin1');
  if (lineEnd >= 0 && !REQUEST_LINE.test(requestLine)) return bad(400, 'malformed request line');
  if (end < 0) return { state: 'more' };
  const [line = '', ...rest] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = REQUEST_LINE.exec(line);
  if (!m) return bad(400, 'malformed request line');
  const headers: [string, string][] = [];
  for (const h of rest) {
    const hm = HEADER_LINE.exec(h);
    if (!hm || CONTROL.test(hm[2] ?? '')) return bad(400, 'malformed header line');
    headers.push([hm[1] ?? '', hm[2] ?? '']);
  }
  return { state: 'ok', method: m[1] ?? '', target: m[2] ?? '', version: m[3] ?? '', headers, length: end + 4 };
}

/** A host name as a resolver takes it (letters, digits, `-`, `_`, dots), or an IP address. */
const NAME = /^(?=.{1,254}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?$/;
export function validHost(host: string): boolean {
  return isIP(host) !== 0 || NAME.test(host);
}

/** `host:port` or `[v6]:port` (the port may be left out when `defaultPort` is given); undefined when malformed. */
export function parseAuthority(text: string, defaultPort?: number): Destination | undefined {
  let host = text;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    host = text.slice(1, close);
    const after = text.slice(close + 1);
    if (close < 0 || isIP(host) !== 6 || (after !== '' && !after.startsWith(':'))) return undefined;
    if (after !== '') portText = after.slice(1);
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
    }
    if (host.includes(':') || !validHost(host)) return undefined; // an IPv6 address needs its brackets here
  }
  if (portText === undefined) return defaultPort === undefined ? undefined : { host, port: defaultPort };
  if (!/^[0-9]{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  return port >= 1 && port <= 65_535 ? { host, port } : undefined;
}

/** An absolute-form target (`http://host[:port]/path?q`): where to connect, the Host to send, the origin-form path. */
export function parseAbsoluteTarget(
  target: string,
): { dest: Destination; authority: string; path: string } | { error: string } {
  const m = /^http:\/\/([^/?#]*)([^#]*)/i.exec(target);
  if (!m) {
    if (/^https:\/\//i.test(target)) return { error: 'an https:// URL goes through CONNECT' };
    return { error: 'this is a proxy: ask for an absolute http:// URL or CONNECT host:port' };
  }
  const authority = (m[1] ?? '').slice((m[1] ?? '').lastIndexOf('@') + 1); // credentials in the URL are not sent on
  const dest = parseAuthority(authority, 80);
  if (!dest) return { error: 'malformed host in the URL' };
  const rest = m[2] ?? '';
  return { dest, authority, path: rest.startsWith('/') ? rest : `/${rest}` };
}

/** Headers that describe one hop, never sent on (Transfer-Encoding is kept: the body goes on as it came). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'upgrade', 'host']);

/** The request to send the origin server: origin-form, its own Host, no Proxy-* nor hop-by-hop headers, one request. */
export function originRequest(head: HttpHead, authority: string, path: string): string {
  const named = new Set(
    head.headers
      .filter(([n]) => n.toLowerCase() === 'connection')
      .flatMap(([, v]) => v.split(',').map((t) => t.trim().toLowerCase())),
  );
  const kept = head.headers.filter(([n]) => {
    const name = n.toLowerCase();
    return !name.startsWith('proxy-') && !HOP_BY_HOP.has(name) && !named.has(name);
  });
  const lines = [`${head.method} ${path} HTTP/${head.version}`, `Host: ${authority}`];
  for (const [n, v] of kept) lines.push(`${n}: ${v}`);
  lines.push('Connection: close', '', '');
  return lines.join('\r\n');
}

export type SocksGreeting = { state: 'more' } | { state: 'bad' } | { state: 'ok'; noAuth: boolean; length: number };

/** A SOCKS5 greeting: version 5, the methods offered. */
export function parseSocksGreeting(buf: Buffer): SocksGreeting {
  if (buf.length < 2) return buf.length === 1 && buf[0] !== 5 ? { state: 'bad' } : { state: 'more' };
  const n = buf[1] ?? 0;
  if (buf[0] !== 5 || n === 0) return { state: 'bad' };
  if (buf.length < 2 + n) return { state: 'more' };
  return { state: 'ok', noAuth: buf.subarray(2, 2 + n).includes(0), length: 2 + n };
}

/** SOCKS5 reply codes (RFC 1928 §6). */
export const SOCKS = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  networkUnreachable: 0x03,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;

export type SocksRequest =
  | { state: 'more' }
  | { state: 'bad'; reply: number }
  | { state: 'ok'; command: number; dest: Destination; length: number };

/** A SOCKS5 request: command, address (IPv4, domain or IPv6) and port. */
export function parseSocksRequest(buf: Buffer): SocksRequest {
  if (buf.length < 5) return { state: 'more' };
  if (buf[0] !== 5 || buf[2] !== 0) return { state: 'bad', reply: SOCKS.generalFailure };
  const atyp = buf[3];
  const nameLength = buf[4] ?? 0;
  const addrLength = atyp === 1 ? 4 : atyp === 4 ? 16 : atyp === 3 ? 1 + nameLength : -1;
  if (addrLength < 0) return { state: 'bad', reply: SOCKS.addressTypeNotSupported };
  if (atyp === 3 && nameLength === 0) return { state: 'bad', reply: SOCKS.generalFailure };
  const length = 4 + addrLength + 2;
  if (buf.length < length) return { state: 'more' };
  const addr = buf.subarray(4, 4 + addrLength);
  const host = atyp === 1 ? addr.join('.') : atyp === 4 ? formatIpv6(addr) : addr.subarray(1).toString('latin1');
  return { state: 'ok', command: buf[1] ?? 0, dest: { host, port: buf.readUInt16BE(4 + addrLength) }, length };
}

/** 16 bytes as an IPv6 address, its longest run of zero groups written `::`. */
export function formatIpv6(bytes: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) =>
    (((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0)).toString(16),
  );
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length && j - i > 1) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

export function socksReply(code: number): Buffer {
  return Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}

/** `host:port`, an IPv6 address in brackets. */
export function hostPort(d: Destination): string {
  return d.host.includes(':') ? `[${d.host}]:${d.port}` : `${d.host}:${d.port}`;
}

// ---- the proxy (the stateful shell) ----

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

type Outcome =
  | { kind: 'ok'; socket: Socket }
  | { kind: 'refused'; why: string }
  | { kind: 'failed'; why: string; socks: number };

/** Every address of this machine's interfaces. */
export function machineAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

async function lookupAll(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true })).map((a) => a.address);
}

function errorCode(e: unknown): string {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : 'error';
}

const SOCKS_FOR_ERROR: Record<string, number> = {
  ECONNREFUSED: SOCKS.connectionRefused,
  ENETUNREACH: SOCKS.networkUnreachable,
  EHOSTUNREACH: SOCKS.hostUnreachable,
  ETIMEDOUT: SOCKS.hostUnreachable,
};

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
  private rules: NetRules;
  private readonly sockets = new Set<Socket>();
  private readonly refusals: string[] = [];
  private closing: Promise<void> | undefined;
  private counts = { requests: 0, refused: 0 };
  private readonly log: (line: string) => void;
  private readonly lookup: (host: string) => Promise<string[]>;
  private readonly hostAddresses: () => readonly string[];
  private readonly headTimeoutMs: number;

  private constructor(
    private readonly server: Server,
    private readonly socketPath: string,
    private readonly inode: number,
    rules: NetRules,
    opts: NetProxyOptions,
  ) {
    this.rules = rules;
    this.log =
      opts.log ??
      (() => {
        // no log asked for
      });
    this.lookup = opts.lookup ?? lookupAll;
    this.hostAddresses = opts.hostAddresses ?? machineAddresses;
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
    this.rules = rules;
  }

  /** Destinations asked for (CONNECT, a plain HTTP request, a SOCKS5 CONNECT), refused ones included. */
  get requests(): number {
    return this.counts.requests;
  }

  get refused(): number {
    return this.counts.refused;
  }

  /** The latest refusals, oldest first, each once: "127.0.0.1:5432 (this machine's loopback; add 5432 to …)". */
  recentRefusals(): string[] {
    return [...this.refusals];
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
    this.counts.requests++;
    const outcome = await this.connectChecked(dest).catch(
      (e: unknown): Outcome => ({ kind: 'failed', why: String(e), socks: SOCKS.generalFailure }),
    );
    if (outcome.kind === 'failed') this.log(`sandbox network: ${hostPort(dest)} unreachable: ${outcome.why}`);
    if (client.destroyed || this.closing) {
      if (outcome.kind === 'ok') outcome.socket.destroy();
      return { kind: 'failed', why: 'the client went away', socks: SOCKS.generalFailure };
    }
    return outcome;
  }

  private async connectChecked(dest: Destination): Promise<Outcome> {
    const host = parseIp(dest.host) ? dest.host.replace(/^\[|\]$/g, '') : dest.host;
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.lookup(host);
    } catch (e) {
      return { kind: 'failed', why: `cannot resolve ${host} (${errorCode(e)})`, socks: SOCKS.hostUnreachable };
    }
    if (addresses.length === 0) return { kind: 'failed', why: `${host} has no address`, socks: SOCKS.hostUnreachable };
    const own = this.hostAddresses();
    const verdicts = addresses.map((address) => ({ address, v: destinationVerdict(dest, address, this.rules, own) }));
    const allowed = verdicts.filter((x) => x.v.ok).map((x) => x.address);
    if (allowed.length === 0) {
      const v = verdicts[0]?.v;
      return this.refuse(dest, v && !v.ok ? v.why : 'refused');
    }
    let last: unknown;
    for (const address of allowed) {
      const kind = addressKind(address, own);
      try {
        return {
          kind: 'ok',
          socket: await this.dial(kind && THIS_MACHINE.has(kind) ? '127.0.0.1' : address, dest.port),
        };
      } catch (e) {
        last = e;
      }
    }
    const code = errorCode(last);
    return { kind: 'failed', why: code, socks: SOCKS_FOR_ERROR[code] ?? SOCKS.generalFailure };
  }

  private refuse(dest: Destination, why: string): Outcome {
    this.counts.refused++;
    const note = `${hostPort(dest)} (${why})`;
    const seen = this.refusals.indexOf(note);
    if (seen >= 0) this.refusals.splice(seen, 1);
    this.refusals.push(note);
    if (this.refusals.length > RECENT_REFUSALS) this.refusals.shift();
    this.log(`sandbox network: refused ${note}`);
    return { kind: 'refused', why };
  }

  private dial(address: string, port: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const s = this.track(connect({ host: address, port, allowHalfOpen: true }));
      const timer = setTimeout(() => {
        s.destroy();
        reject(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' }));
      }, CONNECT_TIMEOUT_MS);
      s.once('connect', () => {
        clearTimeout(timer);
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
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
