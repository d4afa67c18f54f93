// Fleet rows (issue 29): 500 targets registered in one `targets register --from` run, timed from the command's start to
// the last one in a subscribed client's targets.changed; the Core's CPU and RSS idle with them and their health checks;
// `targets list` with 500. Baselines in the same run: 500 single registers (a sample of 25, scaled), and the Core idle
// before the fleet came. Usage: node bench/fleet.mjs [--count N] [--idle SECONDS]. Needs `npm run build`.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectGarbage, connect, root, rssMb, startServe } from './harness.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const count = arg('--count', 500);
const idleSec = arg('--idle', 60);
const cli = join(root, 'bin/switchboard.js');

/** CPU seconds (user + system) the process has used, from /proc. */
function cpuSec(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The Core's CPU share over `sec` seconds of nobody using it, then its RSS and JS heap after a full collection. */
async function idle(pid, sec) {
  const cpu0 = cpuSec(pid);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, sec * 1000));
  const cpu = cpuSec(pid) - cpu0;
  const cpuPct = (100 * cpu) / ((Date.now() - t0) / 1000);
  const heap = await collectGarbage(served);
  return { cpuPct, rss: rssMb(pid), heap };
}

const served = await startServe('terminal:\n  targets:\n    local: { backend: local, cwd: /tmp }\n', {
  nodeArgs: ['--inspect=127.0.0.1:0'],
});
const pid = served.serve.pid;
const env = { ...process.env, SWITCHBOARD_HOME: served.home };
const rows = [];
try {
  const window = await connect(served.url, { person: true });
  await window.call('events.subscribe', { events: ['targets.changed'] });
  // Half local, half SSH to nowhere reachable (TCP looks that fail), as a controller's mixed fleet.
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify(
      i % 2
        ? { name: `f${i}`, backend: 'local', cwd: '/tmp', owner_id: `job-${i % 7}` }
        : {
            name: `f${i}`,
            backend: 'ssh',
            ssh_host: '127.0.0.1',
            ssh_port: 9,
            ssh_user: 'ci',
            owner_id: `job-${i % 7}`,
          },
    ),
  );
  const file = join(served.home, '..', `fleet-${process.pid}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);

  const before = await idle(pid, Math.min(idleSec, 20));

  const last = `f${count - 1}`;
  const seen = new Promise((resolve) => {
    window.listeners.add((m) => {
      if (m.event === 'targets.changed' && m.payload.length >= count + 1 && m.payload.some((t) => t.name === last))
        resolve(Date.now());
    });
  });
  const started = Date.now();
  const reg = spawn(process.execPath, [cli, 'targets', 'register', '--from', file, '--provider', 'bench'], {
    env,
    stdio: 'ignore',
  });
  const exited = new Promise((r) => reg.once('exit', (code) => r({ code, at: Date.now() })));
  const visibleAt = await seen;
  const { code, at } = await exited;
  if (code !== 0) throw new Error(`register --from exited ${code}`);
  rows.push([
    `register ${count} in bulk: last one in a subscribed client`,
    `${visibleAt - started} ms`,
    'goal ≤ 3000 ms',
  ]);
  rows.push([`register ${count} in bulk: the command's run`, `${at - started} ms`, '']);

  // The old way, sampled: one process per target.
  const sample = Math.min(25, arg('--sample', 25));
  const t0 = Date.now();
  for (let i = 0; i < sample; i++)
    spawnSync(process.execPath, [cli, 'targets', 'register', `single${i}`, '--backend', 'local'], { env });
  const perOne = (Date.now() - t0) / sample;
  rows.push([`register ${count} one process each (${sample} sampled, scaled)`, `${Math.round(perOne * count)} ms`, '']);

  const after = await idle(pid, idleSec);
  rows.push([
    `Core idle CPU, ${count + sample + 1} targets with their health checks (${idleSec} s)`,
    `${after.cpuPct.toFixed(2)} %`,
    `1 target: ${before.cpuPct.toFixed(2)} %`,
  ]);
  rows.push([
    `Core RSS idle after a full GC, ${count + sample + 1} targets`,
    `${after.rss.toFixed(0)} MB`,
    `1 target: ${before.rss.toFixed(0)} MB`,
  ]);
  rows.push([
    `Core JS heap after a full GC, ${count + sample + 1} targets`,
    `${after.heap.toFixed(1)} MB`,
    `1 target: ${before.heap.toFixed(1)} MB`,
  ]);

  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = Date.now();
    const r = spawnSync(process.execPath, [cli, 'targets', 'list', '--json'], { env, maxBuffer: 64 << 20 });
    times.push(Date.now() - t);
    if (r.status !== 0) throw new Error(`targets list exited ${r.status}`);
  }
  times.sort((a, b) => a - b);
  rows.push([`targets list --json, ${count + sample + 1} targets (median of 5)`, `${times[2]} ms`, '']);
  window.close();
} finally {
  await served.stop();
}
const w = Math.max(...rows.map((r) => r[0].length));
for (const [what, value, base] of rows) console.log(`${what.padEnd(w)}  ${value.padStart(9)}  ${base}`);
