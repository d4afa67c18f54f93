// Benchmarks (not tests): every row of issues 13 and 27, each against a baseline measured in the same run, printed as
// one table. Usage: node bench/run.mjs [--quick] [--calls N] [--only P1,P4]. Needs `npm run build`; the SSH and Docker
// rows need `bash scripts/test-env.sh up` (a row whose service is absent is printed with the reason it was skipped).
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent as httpAgent, request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchTargets, connect, markerSeen, pct, root, rssMb, startServe, testService } from './harness.mjs';
import { connectPaneClient } from './paneClient.mjs';
import { startPaneFloor } from './paneFloor.mjs';
import { pagedOutputRows } from './pagedOutput.mjs';

const quick = process.argv.includes('--quick');
const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const calls = arg('--calls', quick ? 40 : 200);
/** `--only P2,P7`: just those rows (for working on one path; the README quotes a full run). */
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : undefined;
const want = (id) => !only || only.includes(id);
const starts = quick ? 5 : 15;
/** Untimed calls on each path before its timed ones. */
const warmCalls = quick ? 10 : 20;
const paneBytes = quick ? 5_000_000 : 20_000_000;
const cli = join(root, 'bin/switchboard.js');
/** The `switchboard` command as `npm link` installs it (bin/switchboard), which an agent's client starts for `mcp`. */
const launcher = join(root, 'bin/switchboard');

const ssh = testService('ssh');
const docker = testService('docker');
/** The file tools' folder (P14): not under /tmp, which is each sandbox's own. */
const filesCwd = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'sb-bench-files-'));
const served = await startServe((h) => benchTargets(h, { ssh, docker, filesCwd }), {
  nodeArgs: process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/sbprof'] : [],
});
const corePid = served.serve.pid;
const ws = await connect(served.url);
const env = { ...process.env, SWITCHBOARD_HOME: served.home };

/** The table: one row per path, each with its own baseline. */
const rows = [];
const ms = (x) => `${x.toFixed(1)} ms`;
/** A difference with its sign: `+1.2 ms`, `−0.4 ms`. */
const signed = (x, unit) => (x < 0 ? `−${unit(-x)}` : `+${unit(x)}`);
const mb = (x) => `${x.toFixed(0)} MB`;
/** CPU time (user + system) a process has used, in ms, from /proc: unlike wall time, not moved by other load. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
function latencyRow(id, path, ours, baseName, base, extra = '') {
  const o = pct(ours, 50);
  const b = pct(base, 50);
  rows.push([
    id,
    path,
    `p50 ${ms(o)}, p95 ${ms(pct(ours, 95))}${extra}`,
    `${baseName}: p50 ${ms(b)}, p95 ${ms(pct(base, 95))}`,
    `${(o / b).toFixed(2)}×`,
  ]);
}
const skipRow = (id, path, why) => rows.push([id, path, `skipped: ${why}`, '', '']);
async function timeEach(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  return times;
}
const settle = (msec) => new Promise((r) => setTimeout(r, msec));

// P7 first, before any call has warmed anything up: the Core as it idles after start.
await settle(1000);
const idleRss = rssMb(corePid);

// The clients of P2–P4: the WebSocket API, MCP Streamable HTTP (one SDK session) and MCP stdio (`switchboard mcp`).
const http = new Client({ name: 'bench', version: '1' });
await http.connect(
  new StreamableHTTPClientTransport(new URL(`${served.url.http}mcp`), {
    requestInit: { headers: { authorization: `Bearer ${served.url.token}` } },
  }),
);
const stdio = new Client({ name: 'bench', version: '1' });
await stdio.connect(new StdioClientTransport({ command: launcher, args: ['mcp'], env, stderr: 'inherit' }));
/**
 * MCP HTTP as a lean client speaks it (one keep-alive connection, the request written as JSON, the answer parsed once):
 * the SDK's Client spends about 1 ms of CPU a call on its own schemas and fetch, in this process, which the row above
 * counts and this one does not.
 */
const plainAgent = new httpAgent({ keepAlive: true, maxSockets: 1 });
let plainId = 0;
function plainMcpCall(target) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: ++plainId,
    method: 'tools/call',
    params: { name: 'terminal', arguments: { command: 'true', execution_target: target } },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${served.url.http}mcp`,
      {
        method: 'POST',
        agent: plainAgent,
        headers: {
          authorization: `Bearer ${served.url.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
      },
      (res) => {
        const parts = [];
        res.on('data', (d) => parts.push(d));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(parts).toString('utf8'));
          if (!answer.result || answer.result.isError) reject(new Error(JSON.stringify(answer)));
          else resolve(answer.result);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
const clients = {
  WebSocket: (target) =>
    ws.call('tool.call', { tool: 'terminal', args: { command: 'true', execution_target: target }, client: 'test' }),
  'MCP HTTP': (target) => http.callTool({ name: 'terminal', arguments: { command: 'true', execution_target: target } }),
  'MCP HTTP, plain client': plainMcpCall,
  'MCP stdio': (target) =>
    stdio.callTool({ name: 'terminal', arguments: { command: 'true', execution_target: target } }),
};

/** Back-to-back calls per block: a path and its baseline take turns in blocks of this many. */
const block = 10;

/**
 * Each path against its baseline, measured in turns: `block` baseline calls, then `block` calls of the path, until
 * each has `n`. Load from anything else on the machine changes over seconds; taking turns puts both sides under the
 * same load, where one series after the other compared a quiet second with a busy one. Within a block the calls
 * are back to back, as an agent's sequential calls are at their fastest.
 */
async function terminalRows(id, target, baseName, baseline, n) {
  for (const [via, call] of Object.entries(clients)) {
    // Steady state, as a persistent client sees it: the first calls of a path also compile its code.
    for (let i = 0; i < warmCalls; i++) await call(target);
    const base = [];
    const ours = [];
    let coreCpu = 0;
    let clientCpu = 0;
    while (ours.length < n) {
      const k = Math.min(block, n - ours.length);
      base.push(...(await timeEach(k, baseline)));
      const before = cpuMs(corePid);
      const client = process.cpuUsage();
      ours.push(...(await timeEach(k, () => call(target))));
      const used = process.cpuUsage(client);
      clientCpu += (used.user + used.system) / 1000;
      coreCpu += cpuMs(corePid) - before;
    }
    // The Core's own CPU per call: what its work costs, whatever else the machine runs (10 ms ticks, summed). The
    // client's, in this process: what the path's client spends of the same time (the SDK's Client about 1 ms).
    latencyRow(
      id,
      `terminal ${target} over ${via}`,
      ours,
      baseName,
      base,
      `; Core CPU ${ms(coreCpu / n)}/call, client CPU ${ms(clientCpu / n)}/call`,
    );
  }
}

if (want('P2')) await terminalRows('P2', 'local', 'spawn bash -c true', () => spawnSync('bash', ['-c', 'true']), calls);

if (!want('P3')) {
  // not asked for
} else if (ssh) {
  // The strongest baseline: OpenSSH's own connection sharing (ControlMaster), what Hermes Agent uses.
  const sshArgs = [
    '-i',
    ssh.key,
    '-p',
    String(ssh.port),
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    `${ssh.user}@${ssh.host}`,
    'true',
  ];
  const muxArgs = [
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${join(served.home, 'cm-%r@%h:%p')}`,
    '-o',
    'ControlPersist=60',
    ...sshArgs,
  ];
  spawnSync('ssh', muxArgs);
  await terminalRows('P3', 'ssh', 'ssh ControlMaster', () => spawnSync('ssh', muxArgs), Math.min(calls, 100));
  spawnSync('ssh', ['-o', `ControlPath=${join(served.home, 'cm-%r@%h:%p')}`, '-O', 'exit', `${ssh.user}@${ssh.host}`]);
} else skipRow('P3', 'terminal ssh', 'no .test-env/ssh.json (bash scripts/test-env.sh up)');

if (!want('P4')) {
  // not asked for
} else if (docker) {
  await ws.call('tool.call', {
    tool: 'terminal',
    args: { command: 'true', execution_target: 'docker' },
    client: 'test',
  });
  const id = spawnSync(
    'docker',
    ['-H', `unix://${docker.socket}`, 'ps', '-q', '--filter', 'label=switchboard.target=docker'],
    { encoding: 'utf8' },
  )
    .stdout.trim()
    .split('\n')[0];
  await terminalRows(
    'P4',
    'docker',
    'docker exec CLI',
    () => spawnSync('docker', ['-H', `unix://${docker.socket}`, 'exec', id, 'true']),
    Math.min(calls, 30),
  );
} else skipRow('P4', 'terminal docker', 'no .test-env/docker.json (bash scripts/test-env.sh up)');

// afterWork's idle collection (src/main/core/afterLargeRequest.ts) runs after 2 s.
const idleCollect = () => settle(3000);
let afterBackends = NaN;
if (want('P2') && want('P3') && want('P4') && ssh && docker) {
  await idleCollect();
  afterBackends = rssMb(corePid);
}

/** A JSON-RPC line client of a spawned `switchboard mcp`: request(message) resolves with the answer of its id. */
function lineClient(child) {
  let buf = '';
  const waiting = new Map();
  child.stdout.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      waiting.get(m.id)?.(m);
    }
  });
  return {
    send: (m) => child.stdin.write(`${JSON.stringify(m)}\n`),
    request: (m) =>
      new Promise((resolve) => {
        waiting.set(m.id, resolve);
        child.stdin.write(`${JSON.stringify(m)}\n`);
      }),
  };
}
const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
};
const trueCall = (id) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'terminal', arguments: { command: 'true', execution_target: 'local' } },
});

if (want('P10')) {
  // P10: an agent's first call, sent the moment `initialize` is answered (as the SDK's client does), against the same
  // bridge's warm calls; and P11 the bridge's memory after its work, once idle, against Node doing nothing and Node
  // reading a stdin pipe (the floor of any stdio server). Most of a Node process's RSS is the node binary's own pages,
  // shared with every other Node process: the bridge's private memory (RssAnon) is said beside it.
  const first = [];
  const warm = [];
  const bridgeRss = [];
  const bridgeAnon = [];
  const nodeRss = [];
  const stdinRss = [];
  const anonMb = (pid) => Number(/RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  for (let i = 0; i < starts; i++) {
    const child = spawn(launcher, ['mcp'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const c = lineClient(child);
    await c.request(initialize);
    c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    let t = performance.now();
    await c.request(trueCall(1));
    first.push(performance.now() - t);
    await c.request({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const times = [];
    for (let k = 0; k < 30; k++) {
      t = performance.now();
      await c.request(trueCall(10 + k));
      times.push(performance.now() - t);
    }
    warm.push(pct(times, 50));
    await idleCollect();
    bridgeRss.push(rssMb(child.pid));
    bridgeAnon.push(anonMb(child.pid));
    child.kill();
    // Each measured once it has started (on a loaded machine that takes a while), then idle.
    const idle = spawn(process.execPath, ['-e', "process.stdout.write('up'); setTimeout(() => {}, 5000)"]);
    const reading = spawn(process.execPath, ['-e', "process.stdout.write('up'); process.stdin.on('data', () => {})"]);
    await Promise.all([idle, reading].map((p) => new Promise((r) => p.stdout.once('data', r))));
    await settle(500);
    nodeRss.push(rssMb(idle.pid));
    stdinRss.push(rssMb(reading.pid));
    idle.kill();
    reading.kill();
  }
  rows.push([
    'P10',
    '`switchboard mcp`: first call right after initialize',
    `p50 ${ms(pct(first, 50))}, p95 ${ms(pct(first, 95))}`,
    `its warm calls: p50 ${ms(pct(warm, 50))}`,
    signed(pct(first, 50) - pct(warm, 50), ms),
  ]);
  const over = pct(bridgeRss, 50) - pct(nodeRss, 50);
  rows.push([
    'P11',
    '`switchboard mcp` RSS after 31 calls and tools/list, idle',
    `${pct(bridgeRss, 50).toFixed(1)} MB (private ${pct(bridgeAnon, 50).toFixed(1)} MB)`,
    `node idle: ${pct(nodeRss, 50).toFixed(1)} MB, reading stdin: ${pct(stdinRss, 50).toFixed(1)} MB; ` +
      'goal ≤ node idle + 10 MB',
    signed(over, (x) => `${x.toFixed(1)} MB`),
  ]);
}

if (want('P1')) {
  // P1: output through pty → Core batching → WebSocket, acknowledged as the window does, against node-pty read
  // directly. Both sides get the same command typed into an interactive shell in a pty, which prints the same bytes (N
  // × 'x' then an end marker), and are timed to the marker's arrival, the last byte. Steady state, as a window that has
  // been open a while sees it: the first flood of each side is timed apart (cold: a fresh Core grows its heap and
  // compiles the path, as node-pty's reader does), then each side floods unmeasured until warm, then they take turns
  // and the median of each counts: on a shared 2-core machine one flood's time moves with whatever else runs. The
  // reader at the far end is a client that parses frames where it read them (bench/paneClient.mjs): the client is the
  // window's stand-in, not Switchboard, and a Node client on the `ws` library spends as much CPU per MB as the Core's
  // whole path. That client's figure is its own row, taking turns in the same rounds.
  const readers = { lean: await connectPaneClient(served.url), ws };
  const panes = {};
  // As the window acknowledges (src/shared/paneFlow.ts: ACK_CHUNK, ACK_IDLE_MS; an `ack` message, without a reply): in
  // chunks, and the rest once output stops (output left unacknowledged by each flood would otherwise pile up until the
  // pane pauses for good).
  const ACK_CHUNK = 250_000;
  const ACK_IDLE_MS = 50;
  const acks = (client, paneId) => {
    let unacked = 0;
    let timer;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (unacked > 0) client.notify({ type: 'ack', pane_id: paneId, chars: unacked });
      unacked = 0;
    };
    return {
      flush,
      written(chars) {
        unacked += chars;
        if (unacked >= ACK_CHUNK) flush();
        else timer ??= setTimeout(flush, ACK_IDLE_MS);
      },
    };
  };
  /** Writes `command` into `reader`'s pane and resolves once `marker` came back, acknowledging as the window does. */
  const paneUntil = (reader, marker, command) =>
    new Promise((resolve) => {
      const { client, paneId, ack } = panes[reader];
      const seen = markerSeen(marker);
      const listener = (m) => {
        if (m.type !== 'event' || m.event !== 'pane.data' || m.payload.pane_id !== paneId) return;
        ack.written(m.payload.chars);
        if (seen(m.payload.data)) client.listeners.delete(listener), resolve();
      };
      client.listeners.add(listener);
      void client.call('pane.write', { pane_id: paneId, data: `${command}\r` });
    });
  for (const [reader, client] of Object.entries(readers)) {
    const { pane_id: paneId } = await client.call('pane.open', {
      execution_target: 'local',
      cols: 120,
      rows: 40,
      binary: true,
    });
    panes[reader] = { client, paneId, ack: acks(client, paneId) };
    // Time the floods, not the interactive shell's start (its rc files take a second on a busy machine).
    await paneUntil(reader, 'READY-2', 'echo READY-$((1+1))');
  }
  const { default: nodePty } = await import('node-pty');
  const flood = (bytes, k) => `head -c ${bytes} /dev/zero | tr '\\0' x; echo END-$((${k}+1))`;
  let k = 0;
  /** Seconds for one flood typed by `until(marker, command)`, to its end marker. */
  const floodSeconds = (until) => async () => {
    const t = performance.now();
    k++;
    await until(`END-${k + 1}`, flood(paneBytes, k));
    return (performance.now() - t) / 1000;
  };
  // The baseline reads an interactive shell of its own the same way: the command typed into it, its output read by
  // node-pty in this process (a `bash -c` per flood would time bash's start, which the pane's shell does not pay).
  const baseShell = nodePty.spawn(process.env.SHELL ?? '/bin/bash', [], {
    cols: 120,
    rows: 40,
    cwd: '/tmp',
    env: process.env,
  });
  let baseListener = () => undefined;
  baseShell.onData((d) => baseListener(d));
  const baseUntil = (marker, command) =>
    new Promise((resolve) => {
      const seen = markerSeen(marker);
      baseListener = (d) => {
        if (seen(d)) (baseListener = () => undefined), resolve();
      };
      baseShell.write(`${command}\r`);
    });
  await baseUntil('READY-2', 'echo READY-$((1+1))');
  // A reference, not Switchboard (bench/paneFloor.mjs): what a plain second process that does nothing else costs here.
  const floor = await startPaneFloor();
  await floor.run('READY-2', 'echo READY-$((1+1))');
  const paneOf = (reader) => (marker, command) => paneUntil(reader, marker, command);
  const sides = {
    lean: floodSeconds(paneOf('lean')),
    ws: floodSeconds(paneOf('ws')),
    floor: floodSeconds(floor.run),
    direct: floodSeconds(baseUntil),
  };
  await settle(300);
  const coldPane = await sides.lean();
  const coldBase = await sides.direct();
  const warmFloods = quick ? 2 : 3;
  // One flood's speed moves by ±20 % with the rest of the machine: fifteen per side keep the median steady, and each
  // round starts with the next side, so that no side always follows the same one.
  const timedFloods = quick ? 5 : 15;
  for (let i = 0; i < warmFloods; i++) for (const side of Object.values(sides)) await side();
  const times = { lean: [], ws: [], floor: [], direct: [] };
  const named = Object.entries(sides);
  for (let i = 0; i < timedFloods; i++) {
    for (let j = 0; j < named.length; j++) {
      const [name, side] = named[(i + j) % named.length];
      times[name].push(await side());
    }
  }
  const [leanSecs, wsSecs, floorSecs, baseSecs] = [times.lean, times.ws, times.floor, times.direct].map((xs) =>
    pct(xs, 50),
  );
  const mbps = (s) => `${(paneBytes / 1e6 / s).toFixed(1)} MB/s`;
  const direct = (s) => `node-pty read directly: ${mbps(s)}`;
  rows.unshift(
    [
      'P1',
      `pane output, ${paneBytes / 1e6} MB, acked, warm (median of ${timedFloods})`,
      mbps(leanSecs),
      direct(baseSecs),
      `${(baseSecs / leanSecs).toFixed(2)}×`,
    ],
    [
      'P1',
      `the same, cold: each side's first flood`,
      mbps(coldPane),
      direct(coldBase),
      `${(coldBase / coldPane).toFixed(2)}×`,
    ],
    [
      'P1',
      `the same, warm, read by a client on the ws library`,
      mbps(wsSecs),
      direct(baseSecs),
      `${(baseSecs / wsSecs).toFixed(2)}×`,
    ],
    [
      'P1',
      `reference, not Switchboard: a plain 2nd process reads the pty, sends it over loopback TCP`,
      mbps(floorSecs),
      direct(baseSecs),
      `${(baseSecs / floorSecs).toFixed(2)}×`,
    ],
  );
  for (const { client, paneId, ack } of Object.values(panes)) {
    ack.flush();
    await client.call('pane.close', { pane_id: paneId }).catch(() => undefined);
  }
  readers.lean.close();
  floor.close();
  baseShell.kill();
}

let perPane = NaN;
let perShell = NaN;
/** The Core's child processes (a pane's shell is one). */
const childPids = (pid) =>
  readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  );
let afterCalls = NaN;
if (want('P7')) {
  // P7 per pane: the Core's growth over ten open panes, measured once every shell has printed its prompt (its pty,
  // reader and replay buffer are then in place). The shells are processes of their own: their RSS is shown apart.
  // One pane first, so the one-time load of node-pty (when P1 did not run) is not counted as the panes' cost.
  const first = await ws.call('pane.open', { execution_target: 'local', cols: 120, rows: 40 });
  await ws.call('pane.close', { pane_id: first.pane_id });
  await settle(500);
  const beforePanes = rssMb(corePid);
  const shellsBefore = childPids(corePid);
  const panes = [];
  const prompted = new Set();
  const onOutput = (m) => void (m.type === 'event' && m.event === 'pane.data' && prompted.add(m.payload.pane_id));
  ws.listeners.add(onOutput);
  for (let i = 0; i < 10; i++)
    panes.push(await ws.call('pane.open', { execution_target: 'local', cols: 120, rows: 40, binary: true }));
  while (panes.some((p) => !prompted.has(p.pane_id))) await settle(50);
  ws.listeners.delete(onOutput);
  await settle(1500);
  perPane = (rssMb(corePid) - beforePanes) / panes.length;
  const shells = childPids(corePid).filter((pid) => !shellsBefore.includes(pid));
  perShell = shells.reduce((sum, pid) => sum + rssMb(pid), 0) / panes.length;
  for (const p of panes) await ws.call('pane.close', { pane_id: p.pane_id }).catch(() => undefined);
  afterCalls = rssMb(corePid);
}

// P8 and P9: the CLI as a client, wall time and peak RSS (GNU time's %M) against Node starting and doing nothing.
function timed(cmd, args, extraEnv = env) {
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '__rss %M', cmd, ...args], { env: extraEnv, encoding: 'utf8' });
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  return { wall, rss: Number(/__rss (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024 };
}
/** `n` turns of `base` then `fn`, so that both run under the same load (see terminalRows). */
function takingTurns(n, base, fn) {
  const a = [];
  const b = [];
  for (let i = 0; i < n; i++) a.push(base()), b.push(fn());
  const split = (out) => ({ wall: out.map((x) => x.wall), rss: out.map((x) => x.rss) });
  return { base: split(a), ours: split(b) };
}
if (want('P8')) {
  const { base: nodeIdle, ours: cliCall } = takingTurns(
    starts,
    () => timed(process.execPath, ['-e', '0']),
    () => timed(process.execPath, [cli, 'call', 'terminal', '{"command":"true","execution_target":"local"}']),
  );
  rows.push([
    'P8',
    '`switchboard call terminal true`',
    `p50 ${ms(pct(cliCall.wall, 50))}, p95 ${ms(pct(cliCall.wall, 95))}, peak RSS ${mb(pct(cliCall.rss, 50))}`,
    `node -e 0: p50 ${ms(pct(nodeIdle.wall, 50))}, peak RSS ${mb(pct(nodeIdle.rss, 50))}`,
    `${(pct(cliCall.wall, 50) / pct(nodeIdle.wall, 50)).toFixed(2)}×`,
  ]);
}

/** Spawn to exit of `node -e 0`, started as mcpReady starts `switchboard mcp` (not through GNU time). */
function nodeExits() {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const p = spawn(process.execPath, ['-e', '0'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    p.on('exit', () => resolve(performance.now() - t));
    p.on('error', reject);
  });
}

/** `switchboard mcp` from spawn until it answers `initialize` on stdout. */
function mcpReady() {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const p = spawn(launcher, ['mcp'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      const wall = performance.now() - t;
      p.kill();
      resolve(wall);
    });
    p.on('error', reject);
    p.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }) + '\n',
    );
  });
}
if (want('P9')) {
  const nodeTimes = [];
  const mcpTimes = [];
  // Untimed: the first start after a build compiles the bridge and saves its code cache.
  await mcpReady();
  for (let i = 0; i < starts; i++) nodeTimes.push(await nodeExits()), mcpTimes.push(await mcpReady());
  rows.push([
    'P9',
    '`switchboard mcp` answers initialize',
    `p50 ${ms(pct(mcpTimes, 50))}, p95 ${ms(pct(mcpTimes, 95))}`,
    `node -e 0: p50 ${ms(pct(nodeTimes, 50))}, p95 ${ms(pct(nodeTimes, 95))}`,
    `${(pct(mcpTimes, 50) / pct(nodeTimes, 50)).toFixed(2)}×`,
  ]);
}

if (!Number.isNaN(afterBackends))
  rows.push([
    'P12',
    'Core RSS after local, SSH and Docker calls, idle (started as `npm start` starts it)',
    mb(afterBackends),
    'goal ≤ 80 MB',
    '',
  ]);
if (want('P7'))
  rows.push([
    'P7',
    'Core RSS: idle / per open pane / after the bench',
    `${mb(idleRss)} / ${perPane.toFixed(1)} MB (its shell: ${perShell.toFixed(1)} MB more) / ${mb(afterCalls)}`,
    'goal: ≤ 80 MB / ≤ 5 MB',
    '',
  ]);

/**
 * P14: read_file and write_file of a 4 KB file on a sandboxed local target (its file server, inside the sandbox)
 * against the same folder unsandboxed (the Core's own fs calls), taking turns in blocks; goal ≤ 2× each.
 */
if (want('P14')) {
  const n = quick ? 10 : 20;
  const content = 'x'.repeat(4096);
  const file = (target) => join(filesCwd, `${target}.txt`);
  const tool = (name, target, args) =>
    ws.call('tool.call', { tool: name, args: { ...args, execution_target: target }, client: 'test' });
  const ops = {
    write_file: (target) => tool('write_file', target, { path: file(target), content }),
    read_file: (target) => tool('read_file', target, { path: file(target) }),
  };
  for (const target of ['files_sandboxed', 'files_unsandboxed'])
    for (let i = 0; i < warmCalls; i++) await ops.write_file(target), await ops.read_file(target);
  for (const [name, op] of Object.entries(ops)) {
    const base = [];
    const ours = [];
    while (ours.length < n) {
      base.push(...(await timeEach(5, () => op('files_unsandboxed'))));
      ours.push(...(await timeEach(5, () => op('files_sandboxed'))));
    }
    latencyRow('P14', `${name} sandboxed (goal ≤ 2×)`, ours, `${name} unsandboxed`, base);
  }
}

// After P7's figures: a 20 MB output grows the Core's heap for a while.
if (want('P13')) rows.push(...(await pagedOutputRows(http, { runs: quick ? 3 : 7 })));

await http.close();
await stdio.close();
ws.close();
await served.stop();
rmSync(filesCwd, { recursive: true, force: true });

const order = ['P1', 'P2', 'P3', 'P4', 'P14', 'P12', 'P10', 'P11', 'P7', 'P8', 'P9', 'P13'];
rows.sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]));
const header = ['row', 'path', 'Switchboard', 'baseline (same run)', 'ratio'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(
  `Switchboard bench${quick ? ' (--quick)' : ''}: ${calls} sequential calls per path ` +
    `(SSH ${Math.min(calls, 100)}, Docker ${Math.min(calls, 30)}), taking turns with the baseline in blocks ` +
    `of ${block}; ${starts} CLI starts; node ${process.version}, ${new Date().toISOString()}`,
);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of rows) console.log(line(r));
console.log(
  'ratio: Switchboard ÷ baseline for latencies (lower is better), baseline time ÷ Switchboard time for P1 ' +
    '(higher is better).',
);
