// What the network path's tests share: real destination servers (a TCP echo, an HTTP server), raw clients, SOCKS5
// bytes, curl. Test-only.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Listening {
  port: number;
  close(): Promise<void>;
}

function listening(server: Server, host = '127.0.0.1'): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) => {
    server.listen(0, host, () => {
      resolve({
        port: (server.address() as { port: number }).port,
        close: () =>
          new Promise((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A TCP server that sends back what it receives, and ends when its client ends (half-close kept). */
export function echoServer(host?: string): Promise<Listening> {
  return listening(
    createServer({ allowHalfOpen: true }, (s) => {
      s.on('error', () => s.destroy());
      s.pipe(s);
    }),
    host,
  );
}

/** An HTTP server that answers with what it saw: method, url, headers. */
export function httpServer(host?: string): Promise<Listening> {
  const server = createHttpServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  });
  return listening(server as unknown as Server, host);
}

/** A port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const l = await listening(createServer());
  await l.close();
  return l.port;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Everything a socket receives until it closes. */
export function received(s: Socket): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => {
      // a reset still resolves with what came before it
    });
    s.on('close', () => resolve(Buffer.concat(chunks)));
    s.resume(); // after readBytes paused it
  });
}

/**
 * Opens the proxy's unix socket, sends `bytes` (then half-closes when `end`), and returns all it answers; like most
 * clients, it closes when the proxy ends.
 */
export async function exchange(socketPath: string, bytes: Buffer | string, end = false): Promise<Buffer> {
  const s = connect({ path: socketPath });
  const all = received(s);
  if (end) s.end(bytes);
  else s.write(bytes);
  return all;
}

/** Reads exactly `n` bytes from a socket (the rest stays for the next reader). */
export function readBytes(s: Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length < n) return;
      s.off('data', onData);
      s.off('close', onClose);
      s.pause();
      if (buf.length > n) s.unshift(buf.subarray(n));
      resolve(buf.subarray(0, n));
    };
    const onClose = () => reject(new Error(`closed after ${buf.length} of ${n} bytes`));
    s.on('data', onData);
    s.on('close', onClose);
    s.resume(); // after an earlier readBytes paused it
  });
}

export const SOCKS_HELLO = Buffer.from([5, 1, 0]);

/** A SOCKS5 request for host:port; `atyp` 1 (IPv4), 3 (a name) or 4 (IPv6, given as 16 bytes in `raw`). */
export function socksRequest(host: string, port: number, command = 1, raw?: Uint8Array): Buffer {
  const p = [port >> 8, port & 0xff];
  if (raw) return Buffer.from([5, command, 0, 4, ...raw, ...p]);
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return Buffer.from([5, command, 0, 1, ...host.split('.').map(Number), ...p]);
  return Buffer.from([5, command, 0, 3, host.length, ...Buffer.from(host, 'latin1'), ...p]);
}

/** Connects through the proxy's unix socket (or a bridge's TCP port) by SOCKS5; resolves with the reply code. */
export async function socksOpen(
  to: { path: string } | { port: number },
  host: string,
  port: number,
): Promise<{ socket: Socket; reply: number }> {
  const socket = connect({ ...('path' in to ? to : { host: '127.0.0.1', port: to.port }), allowHalfOpen: true });
  socket.write(Buffer.concat([SOCKS_HELLO, socksRequest(host, port)]));
  const answer = await readBytes(socket, 12);
  return { socket, reply: answer[3] ?? -1 };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** curl with no proxy from the environment (NO_PROXY cleared), a short timeout, and the given arguments. */
export function curl(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'curl',
      ['-sS', '--max-time', '20', '--noproxy', '', ...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
