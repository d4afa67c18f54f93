// A throwaway sshd on its own port (the test env's config and keys) that a test may kill and restart without
// disturbing the shared one other test files use.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function waitPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`port ${port} did not open`);
}

/** All processes below `pid` (from /proc). */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(fields[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [child, pp] of parent) if (pp === p) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

export class PrivateSshd {
  readonly dir = mkdtempSync(join(tmpdir(), 'sb-sshd-'));
  readonly pidFile = join(this.dir, 'sshd.pid');
  readonly log = join(this.dir, 'sshd.log');

  constructor(private readonly config: string, readonly port: number) {}

  async start(): Promise<void> {
    const r = spawnSync('/usr/sbin/sshd', ['-f', this.config, '-E', this.log, '-o', `Port=${this.port}`, '-o', `PidFile=${this.pidFile}`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`sshd did not start: ${r.stderr}`);
    await waitPort(this.port);
  }

  /** Kill sshd itself (listener and per-connection processes), as when the daemon dies; users' processes are left. */
  stop(): void {
    let pid: number;
    try {
      pid = Number(readFileSync(this.pidFile, 'utf8').trim());
    } catch {
      return;
    }
    const comm = (p: number): string => {
      try {
        return readFileSync(`/proc/${p}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    };
    for (const p of [...descendants(pid), pid].filter((x) => comm(x) === 'sshd')) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}
