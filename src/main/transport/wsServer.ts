// Serves the renderer over HTTP and the Core API over a WebSocket, on loopback, behind a token and an Origin check.
// Over 380 lines: the page, the API socket and the MCP route share one listener, one token and one Origin check.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { SwitchboardError } from '../../shared/errors.js';
import { MAX_REQUEST_BYTES } from '../../shared/limits.js';
import {
  Connection,
  leadingId,
  type ConnectionCore,
  type ConnectionIdentity,
  type ConnectionLimits,
  type Peer,
} from './connection.js';
import { cliPersonRefusal } from './approverCheck.js';
import { personWays } from '../../shared/personWay.js';
import { PersonLinks } from '../core/person/index.js';
import { PERSON_PATH } from '../../shared/personPage.js';
import { personCookies } from './personCookie.js';
import { personRoute } from './personRoute.js';

export interface WsServerOptions {
  host?: string;
  port?: number;
  /** With port 0 (any): this one first, when it is free (the last Core's on the profile, so open pages find it). */
  preferPort?: number;
  token?: string;
  /** The person links' codes and secrets (the Core's); a store of its own when omitted. See `identify`. */
  personLinks?: PersonLinks;
  /** Folder of the built renderer (index.html); found next to the build when omitted. */
  rendererDir?: string;
  /** How much may queue for a client that does not read (tests lower them). */
  limits?: ConnectionLimits;
}

/** A WebSocket as a connection's carrier: its bufferedAmount is what the Core holds for the client. */
function socketPeer(ws: WebSocket): Peer {
  return {
    send: (m) => ws.send(JSON.stringify(m)),
    // `ws` calls back once the socket has written the frame, or with an error when it never will (closed first).
    sendBinary: (frame, sent) => ws.send(frame, { binary: true }, () => sent()),
    buffered: () => ws.bufferedAmount,
    isOpen: () => ws.readyState === ws.OPEN,
    close: (reason) => {
      ws.close(1008, reason);
      // The close frame waits behind what the client never read; drop the socket (and its queue) soon after.
      setTimeout(() => ws.terminate(), 1000).unref();
    },
  };
}

/** The first bytes of a frame, as text, where a request's id is (see leadingId). */
function frameStart(raw: RawData): string {
  const first = Array.isArray(raw)
    ? raw[0]
    : raw instanceof ArrayBuffer
      ? Buffer.from(raw, 0, Math.min(raw.byteLength, 512))
      : raw;
  return (first ?? Buffer.alloc(0)).subarray(0, 512).toString('utf8');
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * Frames up to this are read, so that a request over MAX_REQUEST_BYTES gets a clear refusal naming its id; a larger
 * one closes the connection (1009, message too big) as it arrives.
 */
const MAX_FRAME_BYTES = 2 * MAX_REQUEST_BYTES;
const statusText: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
};
const mime: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Where the built renderer lives: out/renderer, found by walking up from this module. */
export function findRendererDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const cand = join(dir, 'out', 'renderer');
    if (existsSync(join(cand, 'index.html'))) return cand;
    const sibling = join(dir, 'renderer');
    if (existsSync(join(sibling, 'index.html')) && dir.endsWith('out')) return sibling;
    dir = dirname(dir);
  }
  return undefined;
}

/** Why a request is refused before any route sees it. */
interface Refusal {
  status: 401 | 403;
  message: string;
}
const FORBIDDEN: Refusal = { status: 403, message: 'forbidden' };
/** A browser opening the page without a token or a person's cookie (a page reloaded after its address was cleaned). */
const NEEDS_LINK: Refusal = {
  status: 401,
  message: 'this page needs a link: run `switchboard open` in a terminal of your own for a new one',
};

function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The request's URL, or undefined when it is malformed (answered with 400, never thrown). */
function parseRequestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    // a malformed URL: refused by the caller
    return undefined;
  }
}

/** The UI's pages live under /s/<token>/ and, for a person's page, under its home; the path below either. */
function pagePath(pathname: string, home: string): string | undefined {
  const m = /^\/s\/[^/]+(\/.*)$/.exec(pathname);
  const rest = m ? m[1]! : pathname.startsWith(`${home}/`) ? pathname.slice(home.length) : undefined;
  if (rest === undefined) return undefined;
  try {
    return decodeURIComponent(rest);
  } catch {
    // malformed escapes: a path no file has
    return '/\0';
  }
}

/** The token of an `Authorization: Bearer …` header; the scheme is case-insensitive (RFC 9110). */
function bearerToken(req: IncomingMessage): string | undefined {
  const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1] : undefined;
}

/**
 * Paths that take the token only in a bearer header: the MCP endpoint, whose clients send headers, so a token never
 * lands in a URL that proxies, logs or histories keep.
 */
const BEARER_ONLY = new Set(['/mcp']);

/**
 * The token a request carries: a bearer header (CLI, MCP), ?token= (the printed URL, the page's socket), or the page
 * path.
 */
function requestToken(req: IncomingMessage, url: URL): string | undefined {
  const bearer = bearerToken(req);
  if (bearer !== undefined || BEARER_ONLY.has(url.pathname)) return bearer;
  const q = url.searchParams.get('token');
  if (q) return q;
  const m = /^\/s\/([^/]+)\//.exec(url.pathname);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    // malformed escapes: no such file
    return undefined;
  }
}

export class WsServer {
  readonly token: string;
  /**
   * What makes a page's socket a person's: a link handed to a person carries a one-time code (in its #fragment, which
   * browsers never send to a server); the page trades it at PERSON_PATH for a lasting secret set as an HttpOnly cookie.
   * Neither is ever in core.json, stdout or a log, so a tool call that reads core.json gets the token — the agent's
   * capability — and nothing more.
   */
  readonly personLinks: PersonLinks;
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly routes = new Map<string, RouteHandler>();
  private readonly sockets = new Set<WebSocket>();
  private readonly connections = new Set<Connection>();
  private readonly rendererDir: string | undefined;
  /** Where a person's page lives (`/p/<random>`): its cookie's Path, its socket at `${home}/ws`. */
  private readonly home: string;
  private readonly host: string;
  private port = 0;

  constructor(
    private readonly core: ConnectionCore,
    private readonly opts: WsServerOptions = {},
  ) {
    this.token = opts.token ?? randomBytes(24).toString('base64url');
    this.personLinks = opts.personLinks ?? new PersonLinks();
    this.host = opts.host ?? '127.0.0.1';
    this.rendererDir = opts.rendererDir ?? findRendererDir();
    this.home = this.personLinks.home;
    const person = personRoute({
      links: this.personLinks,
      port: () => this.port,
      isPerson: (req) => this.showsPerson(req),
    });
    // The trade, where the page opened from a link is; the question, under a person's page's home (its cookie's Path).
    this.routes.set(PERSON_PATH, person);
    this.routes.set(`${this.home}${PERSON_PATH}`, person);
    this.http = createServer((req, res) => {
      this.onRequest(req, res).catch(() => {
        // Nothing a client sends may take the Core down: answer what can be answered, drop the rest.
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n');
        else res.destroy();
      });
    });
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
    this.http.on('upgrade', (req, socket, head) => {
      // Node drops its own error listener on upgrade sockets; a client reset must not become an uncaught error.
      socket.on('error', () => socket.destroy());
      const url = parseRequestUrl(req);
      const denied = url ? this.check(req, url) : undefined;
      const api = url && (url.pathname === '/ws' || url.pathname === `${this.home}/ws`);
      const status = !url ? 400 : (denied?.status ?? (api ? undefined : 404));
      if (status) {
        const challenge = status === 401 ? 'WWW-Authenticate: Bearer realm="switchboard"\r\n' : '';
        // The reason as the body too, for a client that shows what the server said.
        const body = denied ? `${denied.message}\n` : '';
        socket.end(
          `HTTP/1.1 ${status} ${statusText[status] ?? 'Error'}\r\n${challenge}` +
            `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
            `Connection: close\r\n\r\n${body}`,
        );
        socket.destroy();
        return;
      }
      const identity = this.identify(req);
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws, identity));
    });
  }

  /** Add an HTTP route (exact path) served behind the same checks, e.g. /mcp. */
  route(path: string, handler: RouteHandler): void {
    this.routes.set(path, handler);
  }

  async listen(): Promise<{ url: string; wsUrl: string; port: number }> {
    const port = this.opts.port ?? 0;
    const preferred = port === 0 ? this.opts.preferPort : undefined;
    if (!preferred) await this.listenOn(port);
    else await this.listenOn(preferred).catch(() => this.listenOn(0)); // the preferred port is taken: any free one
    const addr = this.http.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    const h = this.host.includes(':') ? `[${this.host}]` : this.host;
    return { url: `http://${h}:${this.port}/`, wsUrl: `ws://${h}:${this.port}/ws`, port: this.port };
  }

  private listenOn(port: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        const where = `${this.host}:${port}`;
        if (err.code === 'EADDRINUSE')
          reject(
            new SwitchboardError(
              'bad_request',
              `${where} is already in use`,
              'pick another --port, or --port 0 for a free one',
            ),
          );
        else if (err.code === 'EACCES')
          reject(
            new SwitchboardError(
              'not_permitted',
              `not allowed to listen on ${where}`,
              'ports below 1024 need privileges; pick a higher --port',
            ),
          );
        else if (err.code === 'EADDRNOTAVAIL')
          reject(
            new SwitchboardError(
              'bad_request',
              `${this.host} is not an address of this machine`,
              'use --host 127.0.0.1',
            ),
          );
        else reject(err);
      };
      this.http.once('error', onError);
      this.http.listen(port, this.host, () => {
        this.http.off('error', onError);
        resolve();
      });
    });
  }

  private allowedHosts(): Set<string> {
    const hosts = new Set([`127.0.0.1:${this.port}`, `localhost:${this.port}`, `[::1]:${this.port}`]);
    const h = this.host.includes(':') ? `[${this.host}]` : this.host;
    hosts.add(`${h}:${this.port}`);
    return hosts;
  }

  /** DNS-rebinding and cross-site protection, then the token. Returns the HTTP status to refuse with, and why. */
  check(req: IncomingMessage, url: URL): Refusal | undefined {
    const hosts = this.allowedHosts();
    if (!req.headers.host || !hosts.has(req.headers.host)) return FORBIDDEN;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let ok = false;
      try {
        const u = new URL(origin);
        // Only the page this server served; the Electron window talks over IPC, never this socket.
        ok = u.protocol === 'http:' && hosts.has(u.host);
      } catch {
        // a malformed Origin is refused
        ok = false;
      }
      if (!ok) return FORBIDDEN;
    }
    const given = requestToken(req, url);
    // Most often the token of another Core, or of this profile's last one (a client's saved config gone stale).
    if (given)
      return tokenMatches(given, this.token) ? undefined : { status: 401, message: 'token not valid for this Core' };
    // A person's page needs no token under its home: its cookie can do more than the token can (and a browser sends
    // it nowhere else).
    if (url.pathname.startsWith(`${this.home}/`) && this.showsPerson(req)) return undefined;
    return req.headers['sec-fetch-dest'] === 'document' ? NEEDS_LINK : { status: 401, message: 'token required' };
  }

  /** Whether a request carries a person's cookie this Core knows (a page that traded a link's code, now or before). */
  private showsPerson(req: IncomingMessage): boolean {
    return personCookies(req, this.port).some((secret) => this.personLinks.matches(secret));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = parseRequestUrl(req);
    if (!url) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request\n');
      return;
    }
    const denied = this.check(req, url);
    if (denied) {
      // A 401 names the scheme it wants (RFC 9110 §11.6.1); MCP clients read it to know a bearer token is needed.
      const headers = {
        'content-type': 'text/plain',
        ...(denied.status === 401 ? { 'www-authenticate': 'Bearer realm="switchboard"' } : {}),
      };
      res.writeHead(denied.status, headers).end(`${denied.message}\n`);
      return;
    }
    const route = this.routes.get(url.pathname);
    if (route) {
      await route(req, res);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    // A person's page, its address cleaned of the token, lives under its home (check() let it in by its cookie).
    const page = pagePath(url.pathname, this.home);
    if (page === undefined) {
      // A link (/?token=…) leads into the page's own path; the UI lives under /s/<token>/ so that every asset request
      // of a page that is not a person's carries the token.
      res
        .writeHead(302, {
          location: `/s/${encodeURIComponent(this.token)}/`,
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        })
        .end();
      return;
    }
    const headers: Record<string, string> = {
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    };
    if (!this.rendererDir) {
      res
        .writeHead(503, { ...headers, 'content-type': 'text/plain' })
        .end('the renderer is not built; run `npm run build`\n');
      return;
    }
    let rel = page;
    if (rel === '/' || !extname(rel)) rel = '/index.html';
    const file = normalize(join(this.rendererDir, rel));
    if (!file.startsWith(this.rendererDir + '/') || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': mime[extname(file)] ?? 'application/octet-stream' });
    res.end(req.method === 'HEAD' ? undefined : readFileSync(file));
  }

  /**
   * Who a socket is: a person's page when it shows the cookie a person link's code bought (client ui, known by the
   * link); otherwise a CLI or bridge, which is a person's only from a terminal of its own, outside every agent sandbox
   * and tool call (asked once, when the connection first calls a person's method: the process behind it does not
   * change).
   */
  private identify(req: IncomingMessage): ConnectionIdentity {
    if (this.showsPerson(req)) return { client: 'ui', person: 'link', personRefusal: () => undefined };
    const clientPort = req.socket.remotePort ?? 0;
    const serverPort = req.socket.localPort ?? this.port;
    const page = req.headers.origin !== undefined;
    let refusal: { why: string | undefined } | undefined;
    return {
      client: 'cli',
      // A page without the cookie is never a person's; a CLI is one as the terminal it runs at.
      person: page ? personWays.link : personWays.terminal,
      personRefusal: () =>
        (refusal ??= {
          why: page
            ? 'this page was not opened from a person link (the one `switchboard serve` shows on its terminal, ' +
              'or `switchboard open`)'
            : cliPersonRefusal(clientPort, serverPort),
        }).why,
    };
  }

  private onSocket(ws: WebSocket, identity: ConnectionIdentity): void {
    this.sockets.add(ws);
    // A malformed or oversized frame is the client's problem, never the Core's.
    ws.on('error', () => ws.terminate());
    const conn = new Connection(this.core, socketPeer(ws), this.opts.limits, identity);
    this.connections.add(conn);
    ws.on('close', () => {
      conn.dispose();
      this.connections.delete(conn);
      this.sockets.delete(ws);
    });
    ws.on('message', (raw) => {
      const size = Array.isArray(raw)
        ? raw.reduce((n, b) => n + b.length, 0)
        : raw instanceof ArrayBuffer
          ? raw.byteLength
          : raw.length;
      // Refused before it is parsed: a parse would cost the Core a few times the size of a request it then refuses.
      if (size > MAX_REQUEST_BYTES) return conn.refuseTooLarge(leadingId(frameStart(raw)), size);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw.toString());
      } catch {
        // Not JSON at all: answered like any other malformed request (it has no id to echo).
        parsed = undefined;
      }
      void conn.receive(parsed, size);
    });
  }

  /** Every open connection's queue and routing (diagnostics and tests). */
  connectionStats(): Array<ReturnType<Connection['stats']>> {
    return [...this.connections].map((c) => c.stats());
  }

  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
