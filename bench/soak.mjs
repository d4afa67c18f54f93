// Soak (not a test): many tool calls spread over a local, an SSH and a Docker target while panes are open and a
// background process floods its output; prints calls/s, errors, and the Core's RSS at start and end.
// Usage: node bench/soak.mjs [--calls 10000] [--concurrency 4]. Needs `npm run build`; SSH and Docker targets need
// `bash scripts/test-env.sh up` (without them the soak runs on the local target alone and says so).
// Goal (issue: reliability): 0 errors, RSS growth ≤ 10 %.
import { benchTargets, collectGarbage, connect, rssMb, startServe, testService } from './harness.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const total = arg('--calls', 10_000);
const concurrency = arg('--concurrency', 4);
const ssh = testService('ssh');
const docker = testService('docker');

// The Core's inspector (loopback, a port of its own) lets the soak collect its garbage before each memory reading.
const served = await startServe((home) => benchTargets(home, { ssh, docker, localCwd: home }), {
  nodeArgs: ['--inspect=127.0.0.1:0'],
});
const pid = served.serve.pid;
const client = await connect(served.url);
const targets = ['local', ...(ssh ? ['ssh'] : []), ...(docker ? ['docker'] : [])];
console.log(
  `soak: ${total} tool calls, ${concurrency} at a time, ` +
    `over ${targets.join(', ')}${ssh && docker ? '' : ' (start the test services for SSH and Docker)'}`,
);

// Panes that keep printing, acknowledged the way the window does (flow control would pause them otherwise).
let paneChars = 0;
const unacked = new Map();
client.listeners.add((m) => {
  if (m.type !== 'event' || m.event !== 'pane.data') return;
  paneChars += m.payload.data.length;
  const n = (unacked.get(m.payload.pane_id) ?? 0) + m.payload.data.length;
  if (n >= 5000) {
    void client.call('pane.ack', { pane_id: m.payload.pane_id, chars: n }).catch(() => undefined);
    unacked.set(m.payload.pane_id, 0);
  } else unacked.set(m.payload.pane_id, n);
});
const panes = [];
for (const t of targets) {
  const p = await client.call('pane.open', { execution_target: t, cols: 120, rows: 40 });
  panes.push(p.pane_id);
  await client.call('pane.write', { pane_id: p.pane_id, data: 'while :; do date; sleep 0.2; done\r' });
}
// A background flood: output faster than anyone reads it, kept in the process's rolling buffer.
const flood = await client.call('tool.call', {
  tool: 'terminal',
  args: { command: 'while :; do seq 1 5000; done', background: true, execution_target: 'local' },
  client: 'test',
});

const errors = [];
let done = 0;
async function one(i) {
  const target = targets[i % targets.length];
  const kind = i % 10;
  try {
    if (kind < 7) {
      const r = await client.call('tool.call', {
        tool: 'terminal',
        args: { command: `echo soak-${i}`, execution_target: target },
        client: 'test',
      });
      if (r.output !== `soak-${i}\n` || r.exit_code !== 0)
        throw new Error(`terminal ${i} on ${target}: ${JSON.stringify(r).slice(0, 200)}`);
    } else if (kind === 7) {
      const path = `soak-${i % 50}.txt`;
      await client.call('tool.call', {
        tool: 'write_file',
        args: { path, content: `n=${i}\n`, execution_target: target },
        client: 'test',
      });
      const r = await client.call('tool.call', {
        tool: 'read_file',
        args: { path, execution_target: target },
        client: 'test',
      });
      if (!String(r.content).includes(`n=${i}`))
        throw new Error(`read_file ${i} on ${target}: ${JSON.stringify(r).slice(0, 200)}`);
    } else if (kind === 8) {
      await client.call('tool.call', {
        tool: 'process',
        args: { action: 'poll', session_id: flood.session_id },
        client: 'test',
      });
    } else {
      await client.call('tool.call', {
        tool: 'search_files',
        args: { pattern: 'soak', target: 'files', execution_target: target },
        client: 'test',
      });
    }
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  }
  done++;
}

async function run(from, to) {
  let next = from;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < to) await one(next++);
    }),
  );
}

// Warm up (pools, containers, JIT) before the first memory reading.
await run(0, Math.min(300, total));
await new Promise((r) => setTimeout(r, 2000));
const heapStart = await collectGarbage(served);
const rssStart = rssMb(pid);
const t0 = performance.now();
const progress = setInterval(
  () => console.log(`  ${done} calls, ${errors.length} errors, Core RSS ${rssMb(pid).toFixed(0)} MB`),
  15_000,
);
await run(Math.min(300, total), total);
clearInterval(progress);
const secs = (performance.now() - t0) / 1000;
const rssEnd = rssMb(pid);
// Readings after a full collection: RSS as the soak ends also holds garbage V8 has not collected yet, and moved by
// 20–30 % between runs of the same code with when the last collection happened.
const heapEnd = await collectGarbage(served);
const rssSettled = rssMb(pid);

await client
  .call('tool.call', { tool: 'process', args: { action: 'kill', session_id: flood.session_id }, client: 'test' })
  .catch(() => undefined);
for (const p of panes) await client.call('pane.close', { pane_id: p }).catch(() => undefined);
client.close();
await served.stop();

const measured = total - Math.min(300, total);
const growth = ((rssSettled - rssStart) / rssStart) * 100;
console.log(
  `calls        ${total} (${measured} measured after warm-up) in ${secs.toFixed(1)} s ` +
    `= ${(measured / secs).toFixed(0)} calls/s`,
);
console.log(`errors       ${errors.length}${errors.length ? ` — first: ${errors.slice(0, 3).join(' | ')}` : ''}`);
console.log(
  `pane output  ${(paneChars / 1e3).toFixed(0)} k chars received and acknowledged over ${panes.length} panes`,
);
console.log(
  `Core RSS     after a full collection: start ${rssStart.toFixed(0)} MB, end ${rssSettled.toFixed(0)} MB: ` +
    `growth ${growth.toFixed(1)} % (goal ≤ 10 %); before it, at the end: ${rssEnd.toFixed(0)} MB`,
);
console.log(
  `Core heap    in use after a full collection: start ${heapStart.toFixed(1)} MB, end ${heapEnd.toFixed(1)} MB`,
);
process.exitCode = errors.length ? 1 : 0;
