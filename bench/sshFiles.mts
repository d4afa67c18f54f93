// Bench (not a test): file tools on an SSH target over SFTP against the same tools where the server has no sftp
// subsystem (commands on exec channels), through an in-process Core. Each row is p50/p95 of N calls and the ratio.
// Usage: npx tsx bench/sshFiles.mts [--calls N]. Needs the loopback sshd (bash scripts/test-env.sh up) and root (the
// sftp-less sshd is started here, as scripts/privateSshd.ts's ownConfig).
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { PrivateSshd, freePort } from '../scripts/privateSshd.js';
import { loadSshEnv } from '../scripts/testEnv.js';
import { builtinProviders } from '../src/main/core/backends/builtins.js';
import { connectionPool } from '../src/main/core/backends/ssh/connectionPool.js';
import { makeTestCore } from '../src/main/core/tools/testCore.js';

const calls = process.argv.includes('--calls') ? Number(process.argv[process.argv.indexOf('--calls') + 1]) : 30;
const env = loadSshEnv();
if (!env || process.getuid?.() !== 0) {
  console.log('skipped: needs the loopback sshd and root');
  process.exit(0);
}
process.env.HOME = mkdtempSync(join(tmpdir(), 'sb-bench-home-'));
delete process.env.SSH_AUTH_SOCK;

const sshd = PrivateSshd.ownConfig(env.user, await freePort());
await sshd.start();
const work = mkdtempSync('/var/tmp/sb-bench-files-');
chownSync(
  work,
  Number(execFileSync('id', ['-u', env.user], { encoding: 'utf8' })),
  Number(execFileSync('id', ['-g', env.user], { encoding: 'utf8' })),
);
const spec = (port: number): string =>
  `{ backend: ssh, ssh_host: 127.0.0.1, ssh_port: ${port}, ssh_user: ${env.user}, ssh_key: ${env.key}, cwd: ${work} }`;
const t = await makeTestCore(['sftp', 'commands'], {
  specs: { sftp: spec(env.port), commands: spec(sshd.port) },
  providers: builtinProviders,
  files: { known_hosts: `${env.knownHostsLine}\n${sshd.knownHostsLine}\n` },
});

const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = performance.now();
    await fn(i);
    out.push(performance.now() - at);
  }
  return out;
}

const small = 'x'.repeat(1000) + '\n';
const mega = `${randomBytes(384 * 1024).toString('base64')}\n`; // 512 KiB of text
const rows: string[][] = [];
const cases: Array<[string, number, (target: string, i: number) => Promise<unknown>]> = [
  [
    'write_file 1 KB',
    calls,
    (target, i) =>
      t.core.callTool(
        'write_file',
        { execution_target: target, path: `${target}-small-${i % 5}.txt`, content: small },
        'test',
      ),
  ],
  [
    'read_file 1 KB',
    calls,
    (target, i) =>
      t.core.callTool('read_file', { execution_target: target, path: `${target}-small-${i % 5}.txt` }, 'test'),
  ],
  [
    'patch 1 KB',
    calls,
    (target, i) =>
      t.core.callTool(
        'patch',
        {
          execution_target: target,
          path: `${target}-small-${i % 5}.txt`,
          old_string: 'x',
          new_string: 'x',
          replace_all: true,
        },
        'test',
      ),
  ],
  [
    'write_file 512 KiB',
    Math.max(5, calls / 3),
    (target) =>
      t.core.callTool('write_file', { execution_target: target, path: `${target}-big.txt`, content: mega }, 'test'),
  ],
  [
    'read_file 512 KiB',
    Math.max(5, calls / 3),
    (target) => t.core.callTool('read_file', { execution_target: target, path: `${target}-big.txt` }, 'test'),
  ],
];
for (const [name, n, fn] of cases) {
  await fn('sftp', 0);
  await fn('commands', 0);
  const s = await timed(n, (i) => fn('sftp', i));
  const c = await timed(n, (i) => fn('commands', i));
  rows.push([
    name,
    `p50 ${pct(c, 50).toFixed(1)} ms, p95 ${pct(c, 95).toFixed(1)} ms`,
    `p50 ${pct(s, 50).toFixed(1)} ms, p95 ${pct(s, 95).toFixed(1)} ms`,
    `${(pct(c, 50) / pct(s, 50)).toFixed(2)}×`,
  ]);
}

await t.close();
await connectionPool.closeAll();
sshd.dispose();
rmSync(work, { recursive: true, force: true });
rmSync(process.env.HOME, { recursive: true, force: true });
console.log(['call', 'no sftp subsystem (commands)', 'SFTP (baseline)', 'ratio'].join(' | '));
for (const r of rows) console.log(r.join(' | '));
