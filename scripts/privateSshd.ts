// A throwaway sshd on its own port (the test env's config and keys, or a config of its own) that a test may kill and
// restart without disturbing the shared one other test files use.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
    for (const [child, pp] of parent)
      if (pp === p) {
        out.push(child);
        walk(child);
      }
  };
  walk(pid);
  return out;
}

export class PrivateSshd {
  readonly pidFile: string;
  readonly log: string;

  constructor(
    private readonly config: string,
    readonly port: number,
    readonly dir = mkdtempSync(join(tmpdir(), 'sb-sshd-')),
  ) {
    this.pidFile = join(dir, 'sshd.pid');
    this.log = join(dir, 'sshd.log');
  }

  /**
   * An sshd with a config of its own for the test env's `user` (whose authorized_keys scripts/env/ssh.sh filled): a
   * host key made here, loopback only, a `Subsystem sftp` line only when `sftp` names its command (a server without
   * one is what a test of the exec fallback needs), and any `lines` more. `knownHostsLine` trusts its key.
   */
  static ownConfig(
    user: string,
    port: number,
    opts: { sftp?: string; lines?: string[] } = {},
  ): PrivateSshd & { knownHostsLine: string } {
    const dir = mkdtempSync(join(tmpdir(), 'sb-sshd-own-'));
    const hostKey = join(dir, 'host_ed25519_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'switchboard-private-host', '-f', hostKey]);
    const lines = [
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      'UsePAM no',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'AuthorizedKeysFile .ssh/authorized_keys',
      `AllowUsers ${user}`,
      'LogLevel VERBOSE',
      'PrintMotd no',
      ...(opts.sftp ? [`Subsystem sftp ${opts.sftp}`] : []),
      ...(opts.lines ?? []),
    ];
    const config = join(dir, 'sshd_config');
    writeFileSync(config, lines.join('\n') + '\n');
    const pub = readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
    return Object.assign(new PrivateSshd(config, port, dir), { knownHostsLine: `[127.0.0.1]:${port} ${pub}` });
  }

  async start(): Promise<void> {
    // sshd's privilege separation needs /run/sshd, which a fresh machine may not have until the service first ran.
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const args = ['-f', this.config, '-E', this.log, '-o', `Port=${this.port}`, '-o', `PidFile=${this.pidFile}`];
    const check = spawnSync('/usr/sbin/sshd', ['-t', ...args], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`sshd refused its config: ${check.stderr.trim()}`);
    const r = spawnSync('/usr/sbin/sshd', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`sshd did not start: ${r.stderr}`);
    await waitPort(this.port);
  }

  /** Stop it and remove its directory (config, keys, log). */
  dispose(): void {
    this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Ends every connection of the daemon (its per-connection processes), leaving it listening: a network blip. */
  dropConnections(): void {
    const listener = this.listener();
    if (listener !== undefined) this.killSshd(descendants(listener));
  }

  /** Kill sshd itself (listener and per-connection processes), as when the daemon dies; users' processes are left. */
  stop(): void {
    const listener = this.listener();
    if (listener !== undefined) this.killSshd([...descendants(listener), listener]);
  }

  /** The listening daemon's pid, from its pid file; undefined when it never started. */
  private listener(): number | undefined {
    try {
      return Number(readFileSync(this.pidFile, 'utf8').trim());
    } catch {
      return undefined;
    }
  }

  /** SIGKILLs those of `pids` that are sshd (not the users' shells below them). */
  private killSshd(pids: number[]): void {
    for (const pid of pids) {
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sshd') process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }
}
