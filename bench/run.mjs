// Benchmarks (not tests): tool-call latency per backend and pane throughput, each against a baseline.
// Usage: node bench/run.mjs [--calls N]. Needs `npm run build`; SSH/Docker figures need `bash scripts/test-env.sh up`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchTargets, connect, pct, root, startServe, testService } from './harness.mjs';

const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 200;
const ssh = testService('ssh');
const docker = testService('docker');
const served = await startServe((h) => benchTargets(h, { ssh, docker }), { nodeArgs: process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/sbprof'] : [] });
const home = served.home;
const { call, listeners, close } = await connect(served.url);

const fmt = (ms) => `${ms.toFixed(1)} ms`;
function timeEach(n, fn) {
  const times = [];
  return (async () => {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await fn(i);
      times.push(performance.now() - t);
    }
    return times;
  })();
}
function report(name, ours, base, baseName) {
  const o = pct(ours, 50);
  const b = pct(base, 50);
  console.log(`${name.padEnd(28)} p50 ${fmt(o).padStart(9)}  p95 ${fmt(pct(ours, 95)).padStart(9)}   baseline (${baseName}) p50 ${fmt(b)}  ratio ${(o / b).toFixed(2)}x`);
}

console.log(`Switchboard bench: ${calls} sequential terminal calls per target, through serve's WebSocket\n`);
const terminal = (target, command) => call('tool.call', { tool: 'terminal', args: { command, execution_target: target }, client: 'test' });

await terminal('local', 'true');
report('terminal local', await timeEach(calls, () => terminal('local', 'true')), await timeEach(calls, () => spawnSync('bash', ['-c', 'true'])), 'spawn bash -c');

if (ssh) {
  const before = existsSync(ssh.log) ? (readFileSync(ssh.log, 'utf8').match(/Accepted publickey/g) ?? []).length : 0;
  await terminal('ssh', 'true');
  const ours = await timeEach(calls, () => terminal('ssh', 'true'));
  const after = existsSync(ssh.log) ? (readFileSync(ssh.log, 'utf8').match(/Accepted publickey/g) ?? []).length : 0;
  const sshArgs = ['-i', ssh.key, '-p', String(ssh.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `${ssh.user}@${ssh.host}`, 'true'];
  const base = await timeEach(Math.min(calls, 30), () => spawnSync('ssh', sshArgs));
  report('terminal ssh', ours, base, 'ssh per command');
  // The strongest baseline: OpenSSH's own connection sharing (ControlMaster), what Hermes Agent uses.
  const cm = join(home, 'cm-%r@%h:%p');
  const muxArgs = ['-o', 'ControlMaster=auto', '-o', `ControlPath=${cm}`, '-o', 'ControlPersist=60', ...sshArgs];
  spawnSync('ssh', muxArgs);
  report('terminal ssh (vs mux)', ours, await timeEach(Math.min(calls, 100), () => spawnSync('ssh', muxArgs)), 'ssh ControlMaster');
  spawnSync('ssh', ['-o', `ControlPath=${cm}`, '-O', 'exit', `${ssh.user}@${ssh.host}`]);
  console.log(`${''.padEnd(28)} SSH logins for ${calls + 1} calls: ${after - before}`);
} else console.log('terminal ssh                 skipped: no .test-env/ssh.json (bash scripts/test-env.sh up)');

if (docker) {
  await terminal('docker', 'true');
  const ours = await timeEach(calls, () => terminal('docker', 'true'));
  const id = spawnSync('docker', ['-H', `unix://${docker.socket}`, 'ps', '-q', '--filter', 'label=switchboard.target=docker'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  const base = await timeEach(Math.min(calls, 30), () => spawnSync('docker', ['-H', `unix://${docker.socket}`, 'exec', id, 'true']));
  report('terminal docker', ours, base, 'docker exec CLI');
} else console.log('terminal docker              skipped: no .test-env/docker.json (bash scripts/test-env.sh up)');

// Live registry: a target registered by another process, until the Core announces it (what the sidebar draws from).
const seenTimes = [];
for (let i = 0; i < 10; i++) {
  const name = `bench-${i}`;
  const t = performance.now();
  const seen = new Promise((resolve) => {
    const l = (m) => {
      if (m.type === 'event' && m.event === 'targets.changed' && m.payload.some((x) => x.name === name)) {
        listeners.delete(l);
        resolve(performance.now() - t);
      }
    };
    listeners.add(l);
  });
  const r = spawnSync(process.execPath, [join(root, 'bin/switchboard.js'), 'targets', 'register', name, '--backend', 'local'], { env: { ...process.env, SWITCHBOARD_HOME: home } });
  if (r.status !== 0) throw new Error(r.stderr.toString());
  seenTimes.push(await seen);
}
const cliTimes = await timeEach(10, () => spawnSync(process.execPath, [join(root, 'bin/switchboard.js'), '--version']));
report('register → targets.changed', seenTimes, cliTimes, 'CLI start alone');

// Pane throughput: 20 MB of output through pty → Core batching → WebSocket, acknowledged like the renderer does.
const pane = await call('pane.open', { execution_target: 'local', cols: 120, rows: 40 });
const total = 20_000_000;
let got = 0;
let unacked = 0;
const done = new Promise((resolve) => listeners.add((m) => {
  if (m.type !== 'event' || m.event !== 'pane.data' || m.payload.pane_id !== pane.pane_id) return;
  const d = m.payload.data;
  let n = 0;
  for (let i = 0; i < d.length; i++) if (d.charCodeAt(i) === 120) n++;
  got += n;
  unacked += m.payload.data.length;
  if (unacked >= 5000) {
    void call('pane.ack', { pane_id: pane.pane_id, chars: unacked });
    unacked = 0;
  }
  if (got >= total) resolve();
}));
await new Promise((r) => setTimeout(r, 300));
const t0 = performance.now();
await call('pane.write', { pane_id: pane.pane_id, data: `head -c ${total} /dev/zero | tr '\\0' x; echo\r` });
await done;
const secs = (performance.now() - t0) / 1000;
// Baseline: the same output read straight from node-pty in this process, with no Core, socket or acks.
const { default: nodePty } = await import('node-pty');
const base0 = performance.now();
await new Promise((resolve) => {
  const p = nodePty.spawn('/bin/bash', ['-c', `head -c ${total} /dev/zero | tr '\\0' x`], { cols: 120, rows: 40 });
  p.onData(() => undefined);
  p.onExit(resolve);
});
const baseSecs = (performance.now() - base0) / 1000;
console.log(`${'pane throughput (local)'.padEnd(28)} ${(total / 1e6 / secs).toFixed(1)} MB/s   baseline (node-pty read directly) ${(total / 1e6 / baseSecs).toFixed(1)} MB/s  ratio ${(secs / baseSecs).toFixed(2)}x time`);

close();
await served.stop();
