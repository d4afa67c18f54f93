// Benchmark (not a test): from an agent's tool call leaving its client to the window's connection receiving the
// pending approval (approvals.changed), through a real `serve` on a local target; each one is then denied.
// Usage: node bench/approvals.mjs [--calls N]. Needs `npm run build`. Goal: dispatch → dialog ≤ 100 ms (this is the
// Core's share; the renderer adds its paint).
import { connect, pct, startServe } from './harness.mjs';

const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 30;
const served = await startServe(
  'terminal:\n  targets:\n    local: { backend: local, cwd: /tmp }\napprovals:\n  mode: ask\n  timeout: 600\n',
);
const window = await connect(served.url);
const agent = await connect(served.url);
await window.call('events.subscribe', { events: ['approvals.changed'] });
// A window opens a moment after the Core starts; the Core loads the bash grammar meanwhile.
await new Promise((r) => setTimeout(r, 1000));

const times = [];
for (let i = 0; i <= calls; i++) {
  const command = `sudo true # ${i}`;
  const seen = new Promise((resolve) => {
    const l = (m) => {
      const p = m.event === 'approvals.changed' && m.payload.find((a) => a.command === command);
      if (p) {
        window.listeners.delete(l);
        resolve(p);
      }
    };
    window.listeners.add(l);
  });
  const start = performance.now();
  const result = agent.call('tool.call', { tool: 'terminal', args: { command } }).catch(() => undefined);
  const pending = await seen;
  // The first call is shown apart (it starts the target's environment), not averaged in.
  if (i > 0) times.push(performance.now() - start);
  else console.log(`first call: ${(performance.now() - start).toFixed(1)} ms`);
  await window.call('approvals.decide', { id: pending.id, decision: 'deny' });
  await result;
}
const at = (p) => pct(times, p).toFixed(1);
console.log(
  `dispatch → approvals.changed on the window's connection, ${times.length} calls: p50 ${at(50)} ms, ` +
    `p95 ${at(95)} ms, max ${at(100)} ms`,
);
window.close();
agent.close();
await served.stop();
