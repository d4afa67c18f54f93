// Benchmark (not a test): how soon a hung plugin host is noticed and replaced, through a real `serve`. Each round
// starts a long command on a plugin target, then hangs the host (SIGSTOP, or the plugin spinning on its event loop)
// and times the call's failure (detect) and the first call a new host answers (back).
// Usage: node bench/pluginLiveness.mjs [--rounds N]. Needs `node scripts/build.mjs node`. Goal: back ≤ 10 s.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, pct, startServe } from './harness.mjs';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const spin = '__BENCH_SPIN__';

/** A plugin backend that runs `sh -c` here; a command naming `spin` makes it spin on its host's event loop. */
const plugin = `
import { spawn } from 'node:child_process';
export function register(ctx) {
  ctx.registerBackendProvider({
    name: 'hangbox',
    create_environment: () => ({
      exec: (command, opts) => new Promise((resolve) => {
        if (command.includes(${JSON.stringify(spin)})) for (const end = Date.now() + 60000; Date.now() < end;);
        const child = spawn('/bin/sh', ['-c', command], {
          cwd: opts.cwd,
          env: opts.env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (d) => (output += d));
        child.stderr.on('data', (d) => (output += d));
        child.on('close', (code) => resolve({ output, exit_code: code ?? 137 }));
      }),
    }),
  });
}
`;

const served = await startServe((home) => {
  const dir = join(home, 'plugins', 'hangbox');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), 'name: hangbox\nversion: 1.0.0\nkind: backend\nentry: index.mjs\n');
  writeFileSync(join(dir, 'index.mjs'), plugin);
  writeFileSync(join(home, 'plugins', 'enabled.json'), JSON.stringify({ enabled: ['hangbox'] }));
  return 'terminal:\n  default_target: box\n  targets:\n    box: { backend: hangbox, cwd: /tmp }\n';
});
const agent = await connect(served.url);
// A person's connection: a host that went down three times in five minutes is only restarted by a person.
const person = await connect(served.url, { person: true });
const term = (command, timeout = 60) => agent.call('tool.call', { tool: 'terminal', args: { command, timeout } });
/** The Core's one plugin host: its child running host.cjs. */
const hostPid = () => {
  const out = execFileSync('ps', ['--ppid', String(served.serve.pid), '-o', 'pid=,args='], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.includes('plugin-host/host.cjs'));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Until a call on the target answers; ms from `since`. */
async function back(since) {
  for (;;) {
    if (
      (await term('echo back').then(
        (r) => r.output,
        () => '',
      )) === 'back\n'
    )
      return Date.now() - since;
    await sleep(20);
  }
}

const stopped = [];
try {
  await back(Date.now());
  const rows = [];
  for (const how of ['SIGSTOP', 'spin']) {
    const detect = [];
    const restored = [];
    for (let i = 0; i < rounds; i++) {
      const marker = `/tmp/sb-bench-liveness-${process.pid}-${how}-${i}`;
      const old = hostPid();
      const call = how === 'spin' ? term(`echo ${spin}`) : term(`touch ${marker}; sleep 50`);
      if (how === 'SIGSTOP') {
        while (!existsSync(marker)) await sleep(10);
        rmSync(marker);
        process.kill(old, 'SIGSTOP');
        stopped.push(old);
      }
      // For a spin the host hangs as the call reaches it: a few ms after it is sent.
      const since = Date.now();
      const failed = await call.then(
        () => false,
        () => true,
      );
      if (!failed) throw new Error(`${how}: the call on a hung host succeeded`);
      detect.push(Date.now() - since);
      restored.push(await back(since));
      if (hostPid() === old) throw new Error(`${how}: the host was not replaced`);
      // Every round hangs the host once: a person's restart between rounds keeps the crash count under the limit.
      await person.call('plugins.restart', { name: 'hangbox' });
      await back(Date.now());
    }
    rows.push({ how, detect, restored });
  }
  console.log(`plugin host liveness, ${rounds} rounds each (heartbeat 1 s, 3 missed)`);
  console.log('hang      detect p50   detect max   back p50   back max');
  for (const r of rows) {
    const s = (xs, p) => `${(pct(xs, p) / 1000).toFixed(1)} s`.padStart(9);
    console.log(
      `${r.how.padEnd(8)}${s(r.detect, 50)}    ${s(r.detect, 100)}  ${s(r.restored, 50)}  ${s(r.restored, 100)}`,
    );
  }
} finally {
  for (const pid of stopped) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // killed by the Core already, as it should be
    }
  }
  agent.close();
  person.close();
  await served.stop();
}
