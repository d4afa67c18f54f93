// Runs inside a sandbox (its own network namespace, only `lo`): listens on loopback for the proxy ports and the
// allowed local ports, and carries every connection over the unix socket to the Core's proxy (netProxy.ts).
// Only `node:` imports, so the helper that runs it bundles small.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { pipeline } from 'node:stream';

/** The ports the proxies listen on inside, unless an allowed local port takes one (see bridgePorts). */
export const DEFAULT_HTTP_PORT = 3128;
export const DEFAULT_SOCKS_PORT = 1080;

/** How long a local port's connection waits for the Core's SOCKS5 answer (the Core's own connect timeout is less). */
const LOCAL_HANDSHAKE_MS = 30_000;

/** NO_PROXY inside: loopback is reached directly (an allowed local port is bridged there). */
const NO_PROXY = 'localhost,127.0.0.1,::1';

/**
 * The proxy ports inside, clear of the allowed local ports: the defaults, or the next free port above a default that
 * one of `localPorts` takes (the local port must stay where the program expects it).
 */
export function bridgePorts(localPorts: readonly number[]): { httpPort: number; socksPort: number } {
  const taken = new Set(localPorts);
  const free = (from: number) => {
    let p = from;
    while (taken.has(p)) p = p >= 65_535 ? 1024 : p + 1;
    taken.add(p);
    return p;
  };
  const httpPort = free(DEFAULT_HTTP_PORT);
  return { httpPort, socksPort: free(DEFAULT_SOCKS_PORT) };
}

/**
 * The environment a sandbox's programs get, so that what they fetch goes through the proxies: HTTP(S)_PROXY for curl,
 * wget, pip (requests), git over https (libcurl), cargo, go and npm (also told by npm_config_*), ALL_PROXY for what
 * speaks SOCKS (socks5h: the Core resolves names), and NODE_USE_ENV_PROXY for Node's own fetch and http (Node 24 and
 * later; older versions ignore it). Java is left out: JAVA_TOOL_OPTIONS makes every JVM print a line on stderr, and
 * JVMs ignore the variables above (a Java build runs with -Dhttps.proxyHost=127.0.0.1 … of its own). Git over ssh and
 * other raw TCP clients are not covered: they reach only the allowed local ports.
 */
export function proxyEnvironment(httpPort: number, socksPort: number): Record<string, string> {
  const http = `http://127.0.0.1:${httpPort}`;
  const socks = `socks5h://127.0.0.1:${socksPort}`;
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY,
    no_proxy: NO_PROXY,
    npm_config_proxy: http,
    npm_config_https_proxy: http,
    npm_config_noproxy: NO_PROXY,
    NODE_USE_ENV_PROXY: '1',
  };
}

/** Errors that only say a peer went away: a connection's normal end from our side's point of view. */
const PEER_GONE = new Set(['ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

function errorCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/**
 * Carries bytes both ways between two connected sockets (created with allowHalfOpen), with backpressure: one side's
 * end becomes the other's end (half-close), an error destroys both. `log` hears errors other than a peer going away.
 */
export function splice(a: Socket, b: Socket, log: (line: string) => void, label: string): void {
  const done = (e: Error | null | undefined) => {
    if (!e) return;
    // A peer that went away (it closed while the other side still wrote): what is already written to the other one
    // still goes out before it closes (a server that answers and closes at once must still be heard).
    if (PEER_GONE.has(errorCode(e) ?? '')) {
      a.destroySoon();
      b.destroySoon();
      return;
    }
    a.destroy();
    b.destroy();
    log(`${label}: ${e.message}`);
  };
  pipeline(a, b, done);
  pipeline(b, a, done);
}

export interface BridgeOptions {
  /** The unix socket the Core's proxy answers on (bound into this sandbox only). */
  socketPath: string;
  /** 0 picks a free port (tests); the bound port is in the result. */
  httpPort: number;
  socksPort: number;
  /** Each is listened on at 127.0.0.1 (and ::1) and reaches this port on the machine's loopback through the Core. */
  localPorts: readonly number[];
  /** Where errors go; stderr by default. */
  log?: (line: string) => void;
}

export interface Bridges {
  httpPort: number;
  socksPort: number;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

/** A SOCKS5 greeting (no authentication) and CONNECT to 127.0.0.1:port, sent together. */
function socksConnectLocal(port: number): Buffer {
  return Buffer.from([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, port >> 8, port & 0xff]);
}

/**
 * How many bytes of the Core's answer to socksConnectLocal are the answer (method choice + CONNECT reply), once
 * enough has arrived to know; undefined while more is needed.
 */
function socksAnswerLength(buf: Buffer): number | undefined {
  if (buf.length < 6) return undefined;
  const atyp = buf[5];
  const addr = atyp === 1 ? 4 : atyp === 4 ? 16 : atyp === 3 ? 1 + (buf[6] ?? 0) : 0;
  if (atyp === 3 && buf.length < 7) return undefined;
  const total = 2 + 4 + addr + 2;
  return buf.length >= total ? total : undefined;
}

/** Listens on 127.0.0.1:port, then on ::1 at the same port where this machine has IPv6 (a failure there is logged). */
async function listenLoopback(
  port: number,
  onConnection: (s: Socket) => void,
  log: (line: string) => void,
): Promise<Server[]> {
  const listen = (host: string, p: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, onConnection);
      server.once('error', reject);
      server.listen({ host, port: p, ipv6Only: host === '::1' }, () => {
        server.off('error', reject);
        server.on('error', (e) => log(`bridge on ${host}:${p}: ${e.message}`));
        resolve(server);
      });
    });
  let v4: Server;
  try {
    v4 = await listen('127.0.0.1', port);
  } catch (e) {
    throw new Error(`sandbox network bridge: cannot listen on 127.0.0.1:${port} (${(e as Error).message})`);
  }
  const bound = (v4.address() as { port: number }).port;
  try {
    return [v4, await listen('::1', bound)];
  } catch (e) {
    log(`sandbox network bridge: no ::1:${bound} (${(e as Error).message}); 127.0.0.1 only`);
    return [v4];
  }
}

/**
 * Starts the bridges inside a sandbox: the HTTP and SOCKS5 proxy ports forward raw bytes to the Core's unix socket
 * (the Core tells the two apart by the first byte), and each allowed local port asks the Core for a SOCKS5 CONNECT to
 * 127.0.0.1 at that port, so a program inside reaches 127.0.0.1:5432 as it would on the host. Rejects when a port
 * cannot be listened on; after that, errors are logged, never thrown.
 */
export async function startBridges(opts: BridgeOptions): Promise<Bridges> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {
      // handled where the socket is used (splice or the handshake); this one keeps it from being an uncaught throw
    });
    return s;
  };
  const toCore = () => track(connect({ path: opts.socketPath, allowHalfOpen: true }));

  const forwardRaw = (label: string) => (inbound: Socket) => {
    track(inbound);
    splice(inbound, toCore(), log, label);
  };

  const forwardLocal = (port: number) => (inbound: Socket) => {
    track(inbound);
    const core = toCore();
    let answer = Buffer.alloc(0);
    const fail = (why: string) => {
      log(`sandbox local port ${port}: ${why}`);
      core.destroy();
      inbound.resetAndDestroy(); // the program sees its connection reset, as when nothing listens
    };
    const timer = setTimeout(() => {
      cleanup();
      fail('the Core did not answer');
    }, LOCAL_HANDSHAKE_MS);
    const cleanup = () => {
      clearTimeout(timer);
      core.off('data', onData);
      core.off('close', onClose);
      inbound.off('close', onInboundClose);
    };
    const onClose = () => {
      cleanup();
      fail('the Core closed the connection');
    };
    const onInboundClose = () => {
      cleanup();
      core.destroy();
    };
    const onData = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const length = socksAnswerLength(answer);
      if (length === undefined) return;
      cleanup();
      if (answer[0] !== 5 || answer[1] !== 0) return fail('the Core refused the SOCKS5 greeting');
      if (answer[3] !== 0) return fail(`the Core refused (SOCKS5 reply ${answer[3]}); see the sandbox's network note`);
      core.pause();
      const rest = answer.subarray(length);
      if (rest.length > 0) inbound.write(rest);
      splice(inbound, core, log, `local port ${port}`);
    };
    core.on('data', onData);
    core.on('close', onClose);
    inbound.on('close', onInboundClose);
    core.write(socksConnectLocal(port));
  };

  try {
    const http = await listenLoopback(opts.httpPort, forwardRaw('http proxy'), log);
    servers.push(...http);
    const socks = await listenLoopback(opts.socksPort, forwardRaw('socks proxy'), log);
    servers.push(...socks);
    for (const port of opts.localPorts) servers.push(...(await listenLoopback(port, forwardLocal(port), log)));
    const portOf = (s: Server | undefined) => (s?.address() as { port: number } | null)?.port ?? 0;
    return {
      httpPort: portOf(http[0]),
      socksPort: portOf(socks[0]),
      close: () => closeAll(servers, sockets),
    };
  } catch (e) {
    await closeAll(servers, sockets);
    throw e;
  }
}

async function closeAll(servers: readonly Server[], sockets: Set<Socket>): Promise<void> {
  const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
  for (const s of sockets) s.destroy();
  await Promise.all(closed);
}
