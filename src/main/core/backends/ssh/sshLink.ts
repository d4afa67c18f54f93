// The way to one SSH target for one runtime identity: its route (spec, ~/.ssh/config aliases, jumps) read once, the
// pooled connection leased for the identity, and the remote home that `~` in its paths means.
import { homedir, userInfo } from 'node:os';
import { posix } from 'node:path';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { ProviderContext, TargetSnapshot } from '../provider.js';
import { connectionPool, type SshLease } from './connectionPool.js';
import { SshSpec } from './fields.js';
import type { LiveConnection } from './liveConnection.js';
import { loadSshConfig } from './sshConfig.js';
import { resolveRoute, type SshHop } from './sshRoute.js';

export class SshLink {
  private lease: SshLease | undefined;
  private route: Promise<SshHop[]> | undefined;
  private homeDir: Promise<string> | undefined;

  constructor(
    private readonly snapshot: TargetSnapshot,
    private readonly ctx: ProviderContext,
  ) {}

  /** The pooled connection's label once leased (user@host, with jumps). */
  get label(): string | undefined {
    return this.lease?.label;
  }

  /** Whether a connection was ever leased (a target never reached has nothing on its host to clean). */
  get leased(): boolean {
    return this.lease !== undefined;
  }

  /** The hops to the target, read once: spec, ~/.ssh/config aliases, the ssh_jump chain. */
  private resolve(): Promise<SshHop[]> {
    this.route ??= (async () => {
      const spec = SshSpec.safeParse(this.snapshot.spec);
      if (!spec.success)
        throw new SwitchboardError(
          'bad_config',
          `target "${this.snapshot.name}" is not a valid SSH target`,
          'check its ssh_* keys',
        );
      const home = homedir();
      const sshConfig = await loadSshConfig(home);
      return resolveRoute(this.snapshot.name, spec.data, {
        resolveSpec: (name) => this.ctx.resolveSpec(name),
        sshConfig,
        local: { home, user: userInfo().username },
      });
    })();
    this.route.catch(() => {
      // the next call resolves the route again; this one's callers get the error
      this.route = undefined;
    });
    return this.route;
  }

  async connect(): Promise<LiveConnection> {
    const hops = await this.resolve();
    this.lease ??= connectionPool.lease(hops, { identity: this.snapshot.identity, ctx: this.ctx });
    return this.lease.connect();
  }

  /** The remote user's home, read once per connection lease. */
  async home(): Promise<string> {
    this.homeDir ??= (async () => {
      const live = await this.connect();
      const r = await live.run('printf %s "$HOME"', { timeoutMs: 15_000 });
      if (r.exitCode !== 0 || !r.output.startsWith('/')) {
        throw new SwitchboardError(
          'target_unreachable',
          `could not read $HOME on ${live.label}`,
          'the remote account needs a home directory',
        );
      }
      return r.output;
    })();
    this.homeDir.catch(() => {
      // the next call asks again; this one's callers get the error
      this.homeDir = undefined;
    });
    return this.homeDir;
  }

  /** `~` and `~/x` mean the remote home (specs may say `cwd: ~/project`). */
  async absolute(path: string): Promise<string> {
    if (path === '~') return this.home();
    if (path.startsWith('~/')) return posix.join(await this.home(), path.slice(2));
    return path;
  }

  /** Lets the pooled connection go; the next call leases it again and reads the home again. */
  async release(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    this.homeDir = undefined;
    await lease?.release();
  }
}
