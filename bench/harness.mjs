// What every bench needs: a served Core on a temp profile with the test services' targets, and a raw WebSocket client.
import { coreProcessEnv } from '../scripts/coreProcessEnv.mjs';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The JSON scripts/env/<name>.sh wrote, unless the service is down or BENCH_SKIP_<NAME> is set. */
export function testService(name) {
  const file = join(root, '.test-env', `${name}.json`);
  if (process.env[`BENCH_SKIP_${name.toUpperCase()}`] || !existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** config.yaml lines for a local target and, where the services run, an `ssh` and a `docker` target. */
export function benchTargets(home, { ssh, docker, localCwd = '/tmp', filesCwd }) {
  let config = `terminal:\n  targets:\n    local: { backend: local, cwd: ${localCwd} }\n`;
  // The file tools' row (P14): one folder, sandboxed and not.
  if (filesCwd)
    config +=
      `    files_sandboxed: { backend: local, cwd: ${filesCwd} }\n` +
      `    files_unsandboxed: { backend: local, cwd: ${filesCwd}, sandbox: off }\n`;
  if (ssh) {
    config +=
      `    ssh: { backend: ssh, ssh_host: ${ssh.host}, ssh_port: ${ssh.port}, ssh_user: ${ssh.user}, ` +
      `ssh_key: ${ssh.key} }\n`;
    writeFileSync(join(home, 'known_hosts'), ssh.knownHostsLine + '\n', { mode: 0o600 });
  }
  if (docker)
    config +=
      `    docker: { backend: docker, docker_image: "${docker.image}", docker_host: "unix://${docker.socket}", ` +
      `docker_network: none }\n`;
  return config;
}

const inspectorNotice = new RegExp(
  String.raw`^(Debugger listening on |For help, see: https:\/\/nodejs\.org|Debugger attached\.|` +
    'Debugger ending on |Waiting for the debugger)',
);

/**
 * `switchboard serve` on a fresh profile holding `config`; resolves once it prints its URL. With
 * `--inspect=127.0.0.1:0` among `nodeArgs`, `inspector` is the address of its inspector (see `collectGarbage`).
 */
export async function startServe(config, { nodeArgs = [] } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'sb-bench-'));
  writeFileSync(join(home, 'config.yaml'), typeof config === 'function' ? config(home) : config);
  const serve = spawn(
    process.execPath,
    [...nodeArgs, join(root, 'bin/switchboard.js'), 'serve', '--port', '0', '--link-fd', '3'],
    {
      // As `npm start` starts it (scripts/coreProcessEnv.mjs).
      env: { ...coreProcessEnv(), SWITCHBOARD_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    },
  );
  let inspector;
  // The Core's own error lines go on to this process's; the inspector's notices do not.
  const notice = inspectorNotice;
  serve.stderr.on('data', (d) => {
    const text = d.toString();
    inspector ??= /Debugger listening on (ws:\/\/\S+)/.exec(text)?.[1];
    const kept = text
      .split(/(?<=\n)/)
      .filter((line) => !notice.test(line))
      .join('');
    if (kept) process.stderr.write(kept);
  });
  serve.stdout.resume();
  const url = await new Promise((resolve, reject) => {
    let out = '';
    // The person link serve hands to descriptor 3: the page's address, the token, and a one-time code after #,
    // traded as the page trades it for the person's cookie (its secret, and the page's home where it goes).
    serve.stdio[3].on('data', (d) => {
      out += d;
      const m = /^(http:\/\/\S+?)\?token=([^\s#]+)#code=(\S+)\n/.exec(out);
      if (!m) return;
      const [http, token, code] = [m[1], decodeURIComponent(m[2]), decodeURIComponent(m[3])];
      tradeCode(http, token, code).then((person) => resolve({ http, token, ...person }), reject);
    });
    serve.on('exit', (c) => reject(new Error(`serve exited ${c}`)));
  });
  return {
    home,
    serve,
    url,
    get inspector() {
      return inspector;
    },
    async stop() {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('exit', r));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The person link's code traded once, as the page does: the cookie's secret (`approver`) and the page's home. */
async function tradeCode(http, token, code) {
  const res = await fetch(new URL('/person', http), {
    method: 'POST',
    headers: { origin: new URL(http).origin, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const approver = /^switchboard_person_\d+=([^;]+);/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  const { home } = await res.json();
  if (!approver || !home) throw new Error(`the person link's code bought no cookie (HTTP ${res.status})`);
  return { approver, home };
}

/** The person's page's address (its home) and the cookie a browser sends there, for a bench that drives Chromium. */
export function personPage(url) {
  const { hostname, port, origin } = new URL(url.http);
  return {
    address: `${origin}${url.home}`,
    cookie: {
      name: `switchboard_person_${port}`,
      value: url.approver,
      domain: hostname,
      path: url.home.replace(/\/$/, ''),
      httpOnly: true,
      sameSite: 'Strict',
    },
  };
}

/**
 * A full garbage collection in a Core started with `--inspect=127.0.0.1:0`, through its inspector; resolves to its JS
 * heap in use after it, in MB. What the Core's RSS is then is what it keeps, not garbage a collection has not reached.
 */
export async function collectGarbage(served) {
  if (!served.inspector) throw new Error('the Core was not started with --inspect=127.0.0.1:0');
  const ws = new WebSocket(served.inspector);
  await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
  let id = 0;
  const pending = new Map();
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString());
    pending.get(m.id)?.(m.result);
  });
  const send = (method, params = {}) =>
    new Promise((r) => (pending.set(++id, r), ws.send(JSON.stringify({ id, method, params }))));
  await send('HeapProfiler.collectGarbage');
  const { result } = await send('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed' });
  ws.close();
  return result.value / 1024 / 1024;
}

/**
 * A pane.data binary frame (layout: src/shared/paneFrame.ts) as the event a listener gets: `data` is the UTF-8 bytes,
 * `chars` what acknowledging them counts. The bench reads the header by hand (it runs the built app, not its sources).
 */
export function paneFrameEvent(buf) {
  const n = buf[1];
  if (buf[0] !== 1 || n < 1 || buf.length < 6 + n) throw new Error(`malformed pane frame (${buf.length} bytes)`);
  return {
    type: 'event',
    event: 'pane.data',
    payload: { pane_id: buf.toString('latin1', 2, 2 + n), chars: buf.readUInt32BE(2 + n), data: buf.subarray(6 + n) },
  };
}

/**
 * A client of the Core's WebSocket API: `call(method, params)`, `notify(message)`, and `listeners` for events (pane
 * output of panes opened with `binary: true` as bytes). With `person`, it connects as the served page does, with the
 * person's secret, so it may decide approvals.
 */
export async function connect(url, { person = false } = {}) {
  // A person's page dials its home's socket with the cookie; anyone else the root's.
  const origin = url.http.replace(/\/$/, '').replace('http', 'ws');
  const ws = new WebSocket(person ? `${origin}${url.home}ws` : `${origin}/ws`, {
    headers: {
      authorization: `Bearer ${url.token}`,
      ...(person ? { cookie: `switchboard_person_${new URL(url.http).port}=${url.approver}` } : {}),
    },
  });
  await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
  let nextId = 1;
  const pending = new Map();
  const listeners = new Set();
  ws.on('message', (raw, isBinary) => {
    const m = isBinary ? paneFrameEvent(raw) : JSON.parse(raw.toString());
    if (m.type === 'result') {
      const p = pending.get(m.id);
      pending.delete(m.id);
      m.ok ? p.resolve(m.result) : p.reject(new Error(m.error.message));
    } else for (const l of listeners) l(m);
  });
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ type: 'call', id, method, params }));
    });
  /** A message without a reply (an `ack`, as a window acknowledges pane output). */
  const notify = (message) => ws.send(JSON.stringify(message));
  return { ws, call, notify, listeners, close: () => ws.close() };
}

/**
 * A marker's search across chunk edges (a pane's, or node-pty's output, as bytes or text): each chunk, and the last
 * few chars of the one before joined to its start.
 */
export function markerSeen(marker) {
  let tail = '';
  return (chunk) => {
    const text = typeof chunk === 'string';
    const head = text ? chunk.slice(0, marker.length) : chunk.subarray(0, marker.length).toString('latin1');
    const seen = chunk.includes(marker) || (tail + head).includes(marker);
    tail = text ? chunk.slice(-marker.length) : chunk.subarray(-marker.length).toString('latin1');
    return seen;
  };
}

/** Resident memory of a process in MB, from /proc. */
export function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
