// Serves the renderer over HTTP and the Core API over a WebSocket, on loopback, behind a token and an Origin check.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { SwitchboardError, toErrorPayload } from '../../shared/errors.js';
import { WireRequest, type WireResponse } from '../../shared/api.js';
import type { Core } from '../core/core.js';

export interface WsServerOptions {
  host?: string;
  port?: number;
  token?: string;
  /** Folder of the built renderer (index.html); found next to the build when omitted. */
  rendererDir?: string;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

const COOKIE = 'switchboard_token';
const mime: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json', '.woff2': 'font/woff2', '.ico': 'image/x-icon',
};
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

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

function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class WsServer {
  readonly token: string;
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly routes = new Map<string, RouteHandler>();
  private readonly sockets = new Set<WebSocket>();
  private readonly rendererDir: string | undefined;
  private readonly host: string;
  private port = 0;

  constructor(private readonly core: Core, private readonly opts: WsServerOptions = {}) {
    this.token = opts.token ?? randomBytes(24).toString('base64url');
    this.host = opts.host ?? '127.0.0.1';
    this.rendererDir = opts.rendererDir ?? findRendererDir();
    this.http = createServer((req, res) => void this.onRequest(req, res));
    this.wss = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 * 1024 });
    this.http.on('upgrade', (req, socket, head) => {
      const denied = this.check(req);
      if (denied || new URL(req.url ?? '/', 'http://x').pathname !== '/ws') {
        socket.end(`HTTP/1.1 ${denied ?? 404} ${denied === 401 ? 'Unauthorized' : denied === 403 ? 'Forbidden' : 'Not Found'}\r\n\r\n`);
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws));
    });
  }

  /** Add an HTTP route (exact path) served behind the same checks, e.g. /mcp. */
  route(path: string, handler: RouteHandler): void {
    this.routes.set(path, handler);
  }

  async listen(): Promise<{ url: string; wsUrl: string; port: number }> {
    const port = this.opts.port ?? 0;
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', (err: NodeJS.ErrnoException) => {
        const where = `${this.host}:${port}`;
        if (err.code === 'EADDRINUSE') reject(new SwitchboardError('bad_request', `${where} is already in use`, 'pick another --port, or --port 0 for a free one'));
        else if (err.code === 'EACCES') reject(new SwitchboardError('not_permitted', `not allowed to listen on ${where}`, 'ports below 1024 need privileges; pick a higher --port'));
        else if (err.code === 'EADDRNOTAVAIL') reject(new SwitchboardError('bad_request', `${this.host} is not an address of this machine`, 'use --host 127.0.0.1'));
        else reject(err);
      });
      this.http.listen(port, this.host, () => resolve());
    });
    const addr = this.http.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    const h = this.host.includes(':') ? `[${this.host}]` : this.host;
    return { url: `http://${h}:${this.port}/`, wsUrl: `ws://${h}:${this.port}/ws`, port: this.port };
  }

  private allowedHosts(): Set<string> {
    const hosts = new Set([`127.0.0.1:${this.port}`, `localhost:${this.port}`, `[::1]:${this.port}`]);
    const h = this.host.includes(':') ? `[${this.host}]` : this.host;
    hosts.add(`${h}:${this.port}`);
    return hosts;
  }

  /** DNS-rebinding and cross-site protection, then the token. Returns an HTTP status to refuse with. */
  check(req: IncomingMessage): 401 | 403 | undefined {
    const hosts = this.allowedHosts();
    if (!req.headers.host || !hosts.has(req.headers.host)) return 403;
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null') {
      let ok = false;
      try {
        const u = new URL(origin);
        // Only the page this server served; the Electron window talks over IPC, never this socket.
        ok = u.protocol === 'http:' && hosts.has(u.host);
      } catch {
        ok = false;
      }
      if (!ok) return 403;
    } else if (origin === 'null') {
      return 403;
    }
    return tokenMatches(this.requestToken(req), this.token) ? undefined : 401;
  }

  private requestToken(req: IncomingMessage): string | undefined {
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ')) return auth.slice(7).trim();
    const url = new URL(req.url ?? '/', 'http://x');
    const q = url.searchParams.get('token');
    if (q) return q;
    const cookie = req.headers.cookie?.split(';').map((c) => c.trim()).find((c) => c.startsWith(`${COOKIE}=`));
    return cookie ? decodeURIComponent(cookie.slice(COOKIE.length + 1)) : undefined;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const denied = this.check(req);
    if (denied) {
      res.writeHead(denied, { 'content-type': 'text/plain' }).end(denied === 401 ? 'token required\n' : 'forbidden\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const route = this.routes.get(url.pathname);
    if (route) {
      await route(req, res);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    const headers: Record<string, string> = {
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    };
    if (url.searchParams.get('token')) {
      // The page URL carries the token once; assets and the socket then use this cookie.
      headers['set-cookie'] = `${COOKIE}=${encodeURIComponent(this.token)}; HttpOnly; SameSite=Strict; Path=/`;
    }
    if (!this.rendererDir) {
      res.writeHead(503, { ...headers, 'content-type': 'text/plain' }).end('the renderer is not built; run `npm run build`\n');
      return;
    }
    let rel = decodeURIComponent(url.pathname);
    if (rel === '/' || !extname(rel)) rel = '/index.html';
    const file = normalize(join(this.rendererDir, rel));
    if (!file.startsWith(this.rendererDir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': mime[extname(file)] ?? 'application/octet-stream' });
    res.end(req.method === 'HEAD' ? undefined : readFileSync(file));
  }

  private onSocket(ws: WebSocket): void {
    this.sockets.add(ws);
    const off = this.core.onEvent((event, payload) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'event', event, payload }));
    });
    ws.on('close', () => {
      off();
      this.sockets.delete(ws);
    });
    ws.on('message', async (raw) => {
      let msg: WireRequest;
      try {
        msg = WireRequest.parse(JSON.parse(raw.toString()));
      } catch {
        return;
      }
      let reply: WireResponse;
      try {
        const result = await this.core.invoke(msg.method, msg.params);
        reply = { type: 'result', id: msg.id, ok: true, result };
      } catch (err) {
        reply = { type: 'result', id: msg.id, ok: false, error: toErrorPayload(err) };
      }
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
    });
  }

  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
