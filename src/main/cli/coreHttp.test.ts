// The relay's small HTTP client against Node's own HTTP server (what the Core runs): every way an answer's body is
// framed, kept-alive connections, and connections that break.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CoreConnections, type CoreResponse, type PostError } from './coreHttp.js';
import { readBody, readEvents } from './mcpLines.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: URL;
const sockets = new Set<Socket>();
/** The server-side connection each request came on, by request path. */
const cameOn = new Map<string, Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      cameOn.set(req.url!, req.socket);
      routes.get(req.url!)!(req, body, res);
    });
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const post = (c: CoreConnections, path: string, body = '{}', headers: Record<string, string> = {}) =>
  c.post(new URL(path, base), { 'content-type': 'application/json', ...headers }, Buffer.from(body));
const text = async (r: CoreResponse): Promise<string> => (await readBody(r.body)).toString('utf8');

describe('the relay HTTP client', () => {
  it('sends the headers and body; reads a body by its length, and one in chunks split anywhere', async () => {
    routes.set('/length', (req, body, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': String(req.headers['x-token']) });
      res.end(JSON.stringify({ got: body }));
    });
    routes.set('/chunks', (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"a":1}\n\n');
      // A chunk that arrives in pieces, one a byte long.
      setTimeout(() => res.write('d'), 20);
      setTimeout(() => res.end('ata: {"b":2}\n\n'), 40);
    });
    const c = new CoreConnections();
    const r = await post(c, '/length', '{"x":"é"}', { 'x-token': 't1' });
    expect([r.status, r.headers['x-echo'], await text(r)]).toEqual([201, 't1', '{"got":"{\\"x\\":\\"é\\"}"}']);
    const events: string[] = [];
    const s = await post(c, '/chunks');
    await readEvents(s.body, (d) => events.push(d));
    expect(events).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('keeps a connection for the next request, and takes a new one once the server closed it', async () => {
    routes.set('/a', (_q, _b, res) => res.writeHead(202).end());
    routes.set('/b', (_q, _b, res) => res.end('b'));
    routes.set('/c', (_q, _b, res) => res.end('c'));
    const c = new CoreConnections();
    expect((await post(c, '/a')).status).toBe(202);
    expect(await text(await post(c, '/b'))).toBe('b');
    expect(cameOn.get('/b')).toBe(cameOn.get('/a'));
    cameOn.get('/b')!.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(await text(await post(c, '/c'))).toBe('c');
    expect(cameOn.get('/c')).not.toBe(cameOn.get('/b'));
  });

  it('fails a request whose connection breaks before its answer, and a body that breaks before its end', async () => {
    routes.set('/reset', (req) => req.socket.destroy());
    routes.set('/half', (_q, _b, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"par');
      setTimeout(() => res.socket!.destroy(), 20);
    });
    const c = new CoreConnections();
    const failed = (await post(c, '/reset').catch((e: unknown) => e)) as PostError;
    expect([failed.code, failed.reused]).toEqual(['ECONNRESET', false]);
    const half = await post(c, '/half');
    await expect(readBody(half.body)).rejects.toThrow(/closed the connection|stopped short/);
  });

  it('says a refused connection by its code, and sends no header that holds a line end', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const c = new CoreConnections();
    const refused = (await c
      .post(new URL(`http://127.0.0.1:${port}/`), {}, Buffer.from('{}'))
      .catch((e: unknown) => e)) as PostError;
    expect(refused.code).toBe('ECONNREFUSED');
    await expect(post(c, '/a', '{}', { authorization: 'Bearer x\r\nx-injected: 1' })).rejects.toThrow(/line end/);
  });
});
