// Benchmark (not a test): how long the Processes panel's Kill takes, per backend and per kind of process: from
// `processes.kill` (the person's call, over the WebSocket) to its answer that the process was killed. Local always;
// SSH and Docker where the test services run (bash scripts/test-env.sh up). Usage: node bench/processKill.mjs
// [--rounds N]. Needs `npm run build`. Goal (issue 39): an SSH kill well under the 4.9 s a newcomer saw; a process
// deaf to HUP and TERM takes the 2 s grace before its KILL.
import { benchTargets, connect, pct, startServe, testService } from './harness.mjs';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const ssh = testService('ssh');
const docker = testService('docker');
const served = await startServe(
  (home) =>
    // Agent work that this bench starts is not what it measures: no approvals, and local runs unsandboxed.
    benchTargets(home, { ssh, docker }).replace('local: { backend: local,', 'local: { backend: local, sandbox: off,') +
    'approvals:\n  mode: off\n',
);
const person = await connect(served.url, { person: true });

const kinds = [
  ['sleep', 'sleep 1000'],
  ['a shell loop', 'while true; do sleep 1; done'],
  ['a server', 'python3 -m http.server 0 2>/dev/null || sleep 1000'],
  ['deaf to HUP and TERM', "trap '' HUP TERM; sleep 1000"],
];
const targets = ['local', ...(ssh ? ['ssh'] : []), ...(docker ? ['docker'] : [])];
for (const target of targets) {
  for (const [kind, command] of kinds) {
    const times = [];
    for (let i = 0; i < rounds; i++) {
      const started = await person.call('tool.call', {
        tool: 'terminal',
        args: { command, background: true, execution_target: target },
      });
      // Running for a moment, as a process is when a person reaches for Kill.
      await new Promise((r) => setTimeout(r, 800));
      const t = Date.now();
      const killed = await person.call('processes.kill', { session_id: started.session_id });
      times.push(Date.now() - t);
      if (killed.status !== 'killed') console.log(`${target} ${kind}: ended ${killed.status}, not killed`);
    }
    const at = (p) => pct(times, p).toFixed(0);
    console.log(`${target.padEnd(6)} ${kind.padEnd(22)} kill → answered: p50 ${at(50)} ms, max ${at(100)} ms`);
  }
}
if (!ssh) console.log('ssh    skipped: the test sshd is not up (bash scripts/test-env.sh up)');
if (!docker) console.log('docker skipped: the test dockerd is not up (bash scripts/test-env.sh up)');
person.close();
await served.stop();
