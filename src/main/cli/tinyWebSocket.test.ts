// The CLI's WebSocket client against a real `ws` server: the handshake and its failures as ws reports them, text and
// binary messages of every length encoding, fragments, ping, and closing from either side.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import TinyWebSocket from './tinyWebSocket.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0).reverse()) c();
});

/**
 * A ws server on loopback that refuses requests without `authorization: Bearer good`; `onSocket` gets each connection.
 */
async function server(onSocket: (ws: WebSocket) => void): Promise<{ url: string; headers: string[] }> {
  const headers: string[] = [];
  const http: HttpServer = createHttpServer();
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    headers.push(`${req.headers.host} ${req.headers.authorization} ${req.url}`);
    if (req.headers.authorization !== 'Bearer good') {
      socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, onSocket);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  cleanup.push(() => {
    for (const c of wss.clients) c.terminate();
    http.close();
  });
  return { url: `ws://127.0.0.1:${(http.address() as { port: number }).port}/ws?x=1`, headers };
}

function open(url: string, token = 'good', handshakeTimeout?: number): Promise<TinyWebSocket> {
  const ws = new TinyWebSocket(url, {
    headers: { authorization: `Bearer ${token}` },
    ...(handshakeTimeout ? { handshakeTimeout } : {}),
  });
  cleanup.push(() => ws.close());
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req: unknown, res: { statusCode: number }) =>
      reject(new Error(`HTTP ${res.statusCode}`)),
    );
    ws.once('error', reject);
  });
}

const nextMessage = (ws: TinyWebSocket): Promise<[Buffer, boolean]> =>
  new Promise((r) => ws.once('message', (data: Buffer, isBinary: boolean) => r([data, isBinary])));

describe('TinyWebSocket', () => {
  it('connects with the given headers and exchanges text and binary messages of every length encoding', async () => {
    const srv = await server((ws) => ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary })));
    const ws = await open(srv.url);
    expect(srv.headers).toEqual([`${new URL(srv.url).host} Bearer good /ws?x=1`]);
    for (const size of [0, 5, 125, 126, 1000, 65535, 65536, 300_000]) {
      const text = 'é'.repeat(Math.floor(size / 2)) + 'x'.repeat(size % 2);
      const echoed = nextMessage(ws);
      ws.send(text);
      const [data, isBinary] = await echoed;
      expect(isBinary).toBe(false);
      expect(data.toString()).toBe(text);
    }
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    const echoed = nextMessage(ws);
    ws.send(bytes);
    expect(await echoed).toEqual([bytes, true]);
  });

  it('joins a fragmented message, answers a ping, and reports the close code the server sends', {
    timeout: 20_000,
  }, async () => {
    let pong: Promise<Buffer> | undefined;
    const srv = await server((ws) => {
      pong = new Promise((r) => ws.once('pong', r));
      ws.ping(Buffer.from('are you there'));
      ws.send('first part, ', { fin: false });
      ws.send('second part', { fin: true });
      ws.once('message', () => ws.close(4001, 'bye'));
    });
    const ws = await open(srv.url);
    const [data] = await nextMessage(ws);
    expect(data.toString()).toBe('first part, second part');
    expect((await pong!).toString()).toBe('are you there');
    const closed = new Promise((r) => ws.once('close', r));
    ws.send('done');
    expect(await closed).toBe(4001);
  });

  it('closing from the client ends the connection on both sides', async () => {
    let serverClosed: Promise<number> | undefined;
    const srv = await server((ws) => (serverClosed = new Promise((r) => ws.once('close', r))));
    const ws = await open(srv.url);
    const closed = new Promise((r) => ws.once('close', r));
    ws.close();
    expect(await closed).toBe(1005);
    expect(await serverClosed!).toBe(1005);
  });

  it('reports a refused upgrade with its HTTP status, a closed port and a silent server as ws does', async () => {
    const srv = await server(() => undefined);
    await expect(open(srv.url, 'bad')).rejects.toThrow('HTTP 401');

    const unused = createTcpServer();
    await new Promise<void>((r) => unused.listen(0, '127.0.0.1', r));
    const port = (unused.address() as { port: number }).port;
    await new Promise((r) => unused.close(r));
    await expect(open(`ws://127.0.0.1:${port}/ws`)).rejects.toThrow(`connect ECONNREFUSED 127.0.0.1:${port}`);

    const held: Socket[] = [];
    const silent = createTcpServer((s) => held.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    cleanup.push(() => {
      for (const s of held) s.destroy();
      silent.close();
    });
    const silentUrl = `ws://127.0.0.1:${(silent.address() as { port: number }).port}/ws`;
    await expect(open(silentUrl, 'good', 200)).rejects.toThrow('Opening handshake has timed out');
    // A server that ends the connection before answering the upgrade.
    const dropped = open(silentUrl);
    while (held.length < 2) await new Promise((r) => setTimeout(r, 10));
    held[1]!.destroy();
    await expect(dropped).rejects.toThrow('socket hang up');
  });
});
