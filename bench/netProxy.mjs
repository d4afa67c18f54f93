// Benchmark (not a test): what the sandbox's network path costs. Time per HTTP request (a fresh connection each, as
// curl or a package manager opens one) and throughput of one large download, direct against through the bridge and
// the Core's proxy (plain HTTP, CONNECT, SOCKS5), to a local server on an allowed local port. Client, server and
// bridge each run in a process of their own, the proxy in this one (as in the Core); the paths take turns each run.
// Usage: node bench/netProxy.mjs [--runs N] [--requests N] [--mb N]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);
const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const PATHS = ['direct', 'http', 'connect', 'socks'];

/** Opens a tunnel to 127.0.0.1:port through the bridge, by CONNECT or SOCKS5; resolves with the socket. */
function tunnel(kind, ports, port) {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: kind === 'connect' ? ports.httpPort : ports.socksPort });
    s.once('error', reject);
    const want = kind === 'connect' ? -1 : 12;
    let got = Buffer.alloc(0);
    const onData = (d) => {
      got = Buffer.concat([got, d]);
      const end = want < 0 ? got.indexOf('\r\n\r\n') : got.length >= want ? want - 4 : -1;
      if (end < 0) return;
      s.off('data', onData); // the server says nothing before the request: no byte is lost here
      if (want < 0 ? !got.toString('latin1').startsWith('HTTP/1.1 200') : got[3] !== 0) reject(new Error('refused'));
      else resolve(s);
    };
    s.on('data', onData);
    if (kind === 'connect') s.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
    else s.write(Buffer.from([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, port >> 8, port & 0xff]));
  });
}

/** One GET on a fresh connection by the given path; resolves with its milliseconds and the body's bytes. */
async function get(kind, ports, serverPort, path) {
  const start = performance.now();
  const options =
    kind === 'direct'
      ? { host: '127.0.0.1', port: serverPort, path, agent: false }
      : kind === 'http'
        ? { host: '127.0.0.1', port: ports.httpPort, path: `http://127.0.0.1:${serverPort}${path}`, agent: false }
        : { createConnection: () => socket, host: '127.0.0.1', port: serverPort, path };
  const socket = kind === 'connect' || kind === 'socks' ? await tunnel(kind, ports, serverPort) : undefined;
  return new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      let bytes = 0;
      res.on('data', (d) => (bytes += d.length));
      res.on('end', () => {
        socket?.destroy();
        resolve({ ms: performance.now() - start, bytes });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The roles this file plays in its child processes. */
async function child(role, args) {
  if (role === 'server') {
    const { createServer } = await import('node:http');
    const big = Buffer.alloc(Number(args[0]) * 1024 * 1024, 7);
    const server = createServer((req, res) => res.end(req.url === '/big' ? big : 'ok'));
    server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
  } else if (role === 'bridge') {
    const { startBridges } = await import(pathToFileURL(args[0]).href);
    const b = await startBridges({ socketPath: args[1], httpPort: 0, socksPort: 0, localPorts: [] });
    console.log(JSON.stringify({ httpPort: b.httpPort, socksPort: b.socksPort }));
  } else if (role === 'client') {
    for await (const line of createInterface({ input: process.stdin })) {
      const { kind, ports, serverPort, path, count } = JSON.parse(line);
      const results = [];
      for (let i = 0; i < count; i++) results.push(await get(kind, ports, serverPort, path));
      console.log(JSON.stringify(results));
    }
  }
}

/** Starts this file in a role; resolves with the process and a function that sends a line and awaits the answer. */
async function startChild(role, ...args) {
  const p = spawn(process.execPath, [here, role, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: p.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value);
  const ask = async (obj) => {
    p.stdin.write(`${JSON.stringify(obj)}\n`);
    return next();
  };
  return { p, ask, first: role === 'client' ? undefined : await next() };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const runs = arg('--runs', 25);
  const requests = arg('--requests', 40);
  const mb = arg('--mb', 64);
  const { bundled, root } = await import('./bundle.mjs'); // here, not at the top: the child processes need none of it
  const sandbox = join(root, 'src/main/core/sandbox');
  const { netProxy } = await bundled({
    netProxy: join(sandbox, 'netProxy.ts'),
    netBridge: join(sandbox, 'netBridge.ts'),
  });
  const { NetProxy } = netProxy;
  const dir = mkdtempSync(join(tmpdir(), 'sb-netbench-'));
  const socketPath = join(dir, 'p.sock');

  const server = await startChild('server', String(mb));
  const serverPort = server.first.port;
  const proxy = await NetProxy.listen(socketPath, { allowLocalPorts: [serverPort] });
  const bridge = await startChild('bridge', join(root, 'out/bench/netBridge.mjs'), socketPath);
  const ports = bridge.first;
  const client = await startChild('client');

  const perRequest = Object.fromEntries(PATHS.map((k) => [k, []]));
  const throughput = Object.fromEntries(PATHS.map((k) => [k, []]));
  for (const kind of PATHS) await client.ask({ kind, ports, serverPort, path: '/small', count: 10 }); // warm up
  for (let r = 0; r < runs; r++) {
    for (const kind of PATHS) {
      const small = await client.ask({ kind, ports, serverPort, path: '/small', count: requests });
      perRequest[kind].push(small.reduce((a, x) => a + x.ms, 0) / small.length);
      const [big] = await client.ask({ kind, ports, serverPort, path: '/big', count: 1 });
      if (big.bytes !== mb * 1024 * 1024) throw new Error(`${kind}: ${big.bytes} bytes, not ${mb} MB`);
      throughput[kind].push(mb / (big.ms / 1000));
    }
  }

  const label = {
    direct: 'direct (baseline)',
    http: 'bridge + proxy, plain HTTP',
    connect: 'bridge + proxy, CONNECT',
    socks: 'bridge + proxy, SOCKS5',
  };
  const base = { ms: median(perRequest.direct), mbs: median(throughput.direct) };
  console.log(
    `sandbox network path: ${runs} runs; each run ${requests} GETs of 2 bytes (a fresh connection each) and one ` +
      `${mb} MB GET per path, paths taking turns; medians over the runs`,
  );
  console.log(
    `  ${'path'.padEnd(28)}${'per request'.padStart(13)}${'× direct'.padStart(10)}` +
      `${'throughput'.padStart(14)}${'× direct'.padStart(10)}`,
  );
  for (const kind of PATHS) {
    const ms = median(perRequest[kind]);
    const mbs = median(throughput[kind]);
    console.log(
      `  ${label[kind].padEnd(28)}${`${ms.toFixed(3)} ms`.padStart(13)}${`${(ms / base.ms).toFixed(2)}`.padStart(10)}` +
        `${`${mbs.toFixed(0)} MB/s`.padStart(14)}${`${(mbs / base.mbs).toFixed(2)}`.padStart(10)}`,
    );
  }
  console.log(`  proxy: ${proxy.requests} requests, ${proxy.refused} refused`);
  for (const c of [client, bridge, server]) c.p.kill();
  await proxy.close();
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[2] && ['server', 'bridge', 'client'].includes(process.argv[2]))
  await child(process.argv[2], process.argv.slice(3));
else await main();
