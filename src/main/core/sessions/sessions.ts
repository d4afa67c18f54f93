// Live state per runtime identity: its Environment and tracked cwd (kept across restarts, cwdStore.ts). Nothing here
// is shared between identities.
import { homedir } from 'node:os';
import { join, posix } from 'node:path';
import { CwdStore } from './cwdStore.js';
import type { Environment, ProviderContext, TargetSnapshot, BackendProvider } from '../backends/index.js';
import type { SandboxInfo } from '../../../shared/targets.js';

/** What of an identity changed (Sessions.onChange). */
export type SessionChange = 'cwd' | 'reachability' | 'sandbox';

interface IdentityState {
  env: Environment;
  snapshot: TargetSnapshot;
  cwd: string | undefined;
  /** Why the cwd kept from an earlier run was not restored: said once, in the next command's result. */
  cwdNote: string | undefined;
  problem: string | undefined;
  /** The problem is one a look at the port cannot disprove (a changed host key, a refused login). */
  lasting: boolean;
}

export class Sessions {
  private readonly states = new Map<string, IdentityState>();
  /**
   * Where each identity's work runs, as its Environment last found it: kept apart from `states`, since a probe's own
   * Environment (health checks, doctor) reports it before any call made one here.
   */
  private readonly sandboxes = new Map<string, SandboxInfo>();
  private readonly listeners = new Set<(identity: string, what: SessionChange) => void>();
  private readonly kept: CwdStore;

  constructor(
    private readonly providers: (backend: string) => BackendProvider | undefined,
    private readonly ctx: ProviderContext,
  ) {
    this.kept = new CwdStore(join(ctx.home, 'state', 'cwd'));
  }

  /**
   * Called when an identity's cwd, reachability or sandbox changes (the sidebar follows); `what` says which, since only
   * the first two say anything of whether it can be reached.
   */
  onChange(listener: (identity: string, what: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(identity: string, what: SessionChange): void {
    for (const l of this.listeners) l(identity, what);
  }

  private state(snapshot: TargetSnapshot): IdentityState {
    let s = this.states.get(snapshot.identity);
    if (!s) {
      const provider = this.providers(snapshot.spec.backend);
      if (!provider) throw new Error(`no provider for backend ${snapshot.spec.backend}`);
      s = {
        env: provider.createEnvironment(snapshot, this.ctx),
        snapshot,
        cwd: undefined,
        cwdNote: undefined,
        problem: undefined,
        lasting: false,
      };
      this.states.set(snapshot.identity, s);
    }
    return s;
  }

  environment(snapshot: TargetSnapshot): Environment {
    return this.state(snapshot).env;
  }

  /**
   * The identity's tracked cwd; the first time, the one kept from an earlier run (a directory gone since is said by
   * the command that finds it gone), else the spec's cwd (with ~ expanded) or the target's home.
   */
  async cwd(snapshot: TargetSnapshot): Promise<string> {
    const s = this.state(snapshot);
    if (s.cwd !== undefined) return s.cwd;
    const kept = this.kept.load(snapshot.identity, snapshot.name, (id) => this.states.has(id));
    if (kept && 'cwd' in kept) {
      s.cwd = kept.cwd;
      return s.cwd;
    }
    const start = await startCwd(snapshot, s.env);
    // Another call may have set it meanwhile (the home is asked of the target).
    if (s.cwd !== undefined) return s.cwd;
    s.cwd = start;
    if (kept) s.cwdNote = `[the cwd was reset to ${start}: ${kept.reset}]`;
    return s.cwd;
  }

  /**
   * Where a person's new pane starts: the target's own cwd (its spec's, or its home), never the agent's last one — a
   * folder an agent chose may hold a repository whose config or hooks it wrote, which the person's `git status` would
   * run.
   */
  async personCwd(snapshot: TargetSnapshot): Promise<string> {
    return startCwd(snapshot, this.state(snapshot).env);
  }

  /** Why the cwd kept from an earlier run was not restored, once (the next command's result says it). */
  takeCwdNote(identity: string): string | undefined {
    const s = this.states.get(identity);
    const note = s?.cwdNote;
    if (s) s.cwdNote = undefined;
    return note;
  }

  /** The cwd if known, without touching the environment (for listings). */
  knownCwd(identity: string): string | undefined {
    return this.states.get(identity)?.cwd;
  }

  setCwd(snapshot: TargetSnapshot, cwd: string): void {
    const s = this.state(snapshot);
    if (s.cwd === cwd) return;
    s.cwd = cwd;
    this.kept.save(snapshot.identity, snapshot.name, cwd);
    this.emit(snapshot.identity, 'cwd');
  }

  /** Resolve a path a tool was given against the identity's cwd. */
  async resolvePath(snapshot: TargetSnapshot, path: string): Promise<string> {
    const cwd = await this.cwd(snapshot);
    const home = path.startsWith('~') ? await this.state(snapshot).env.home() : '';
    if (path === '~') return home;
    if (path.startsWith('~/')) return posix.join(home, path.slice(2));
    return posix.resolve(cwd, path);
  }

  problem(identity: string): string | undefined {
    return this.states.get(identity)?.problem;
  }

  /** `lasting`: see ProviderContext.reportReachability; the same problem told again without it stays lasting. */
  reportReachability(identity: string, problem: string | undefined, lasting = false): void {
    const s = this.states.get(identity);
    if (!s) return;
    if (s.problem === problem) {
      s.lasting ||= lasting && problem !== undefined;
      return;
    }
    s.problem = problem;
    s.lasting = lasting && problem !== undefined;
    this.emit(identity, 'reachability');
  }

  /** Where the identity's work runs as its Environment found it; undefined before it reported (see sandboxFor). */
  sandbox(identity: string): SandboxInfo | undefined {
    return this.sandboxes.get(identity);
  }

  /**
   * Where the identity's work runs, as its Environment found it (ProviderContext.reportSandbox): kept until it reports
   * again or the identity is removed, and told to the listeners only when it differs from what was known.
   */
  reportSandbox(identity: string, info: SandboxInfo): void {
    const known = this.sandboxes.get(identity);
    if (known && JSON.stringify(known) === JSON.stringify(info)) return;
    this.sandboxes.set(identity, info);
    this.emit(identity, 'sandbox');
  }

  /**
   * A health look found the target answering: that clears a problem a call or a connection met, unless it is one the
   * look cannot see (a host key that changed still changed while its port answers).
   */
  lookedReachable(identity: string): void {
    if (this.states.get(identity)?.lasting) return;
    this.reportReachability(identity, undefined);
  }

  /** Forget an identity (target removed or replaced): its environment is cleaned up, its cwd dropped. */
  async release(identity: string, reason: 'removed' | 'idle' | 'shutdown'): Promise<void> {
    // Removed or replaced: its kept cwd goes too (an identity is never used again); idle or shutdown keep it.
    if (reason === 'removed') {
      this.kept.remove(identity);
      this.sandboxes.delete(identity);
    }
    const s = this.states.get(identity);
    if (!s) return;
    this.states.delete(identity);
    await s.env
      .cleanup(reason)
      .catch((err: unknown) => this.ctx.log?.for('sessions').warn(`cleanup of ${identity} failed`, err));
  }

  identities(): string[] {
    return [...this.states.keys()];
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.states.keys()].map((id) => this.release(id, 'shutdown')));
  }
}

/**
 * Where a target's commands start: its spec's cwd, else its backend's default (`~` for the built-ins), made absolute.
 */
export async function startCwd(snapshot: TargetSnapshot, env: Pick<Environment, 'home'>): Promise<string> {
  const home = snapshot.flags.is_remote || snapshot.flags.is_container ? await env.home() : homedir();
  return resolveStartCwd(snapshot.spec.cwd ?? snapshot.flags.default_cwd, home);
}

/** A spec cwd such as `~/project` or `/srv` resolved against the target's home. */
export function resolveStartCwd(specCwd: string | undefined, home: string): string {
  if (!specCwd) return home;
  if (specCwd === '~') return home;
  if (specCwd.startsWith('~/')) return posix.join(home, specCwd.slice(2));
  return posix.resolve(home, specCwd);
}
