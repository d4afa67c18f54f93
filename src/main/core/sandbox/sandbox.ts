// The Sandbox: the OS boundary agent work on a local target runs in (bubblewrap on Linux, Seatbelt on macOS). The
// pure parts are sandboxPolicy.ts, bwrapArgs.ts and seatbelt.ts; this is the thin shell around them: where the
// identity's folder is, the command line that runs a program inside, and killing across the PID namespace.
import { mkdirSync, existsSync, statSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { SandboxInfo } from '../../../shared/targets.js';
import type { SandboxSetting } from '../../../shared/specFields.js';
import { bwrapArgs } from './bwrapArgs.js';
import { seatbeltProfile } from './seatbelt.js';
import { CREATED_CACHES, sandboxPolicy, type PolicyInput, type SandboxPolicy } from './sandboxPolicy.js';
import { sandboxAvailability, type SandboxAvailability, type SandboxKind } from './sandboxAvailability.js';
import { childrenOf, hostGroup, namespaceMembers, namespaceOf } from './pidNamespace.js';
import { GENTLE_SIGNALS, sendSignal, tracked, untilGone } from '../processes/endGently.js';

/** What a target's spec says and what this machine offers, as TargetInfo.sandbox says it (pure). */
export function sandboxInfo(
  setting: SandboxSetting | undefined,
  available: SandboxAvailability = sandboxAvailability(),
): SandboxInfo {
  if (setting === 'off') return { state: 'unsandboxed', reason: 'sandbox: off in its spec' };
  if (!available.ok) return { state: 'unsandboxed', reason: available.reason };
  return { state: 'sandboxed', kind: available.kind, network: setting?.network ?? true };
}

/**
 * "sandboxed (bubblewrap)", "sandboxed (bubblewrap, no network)" or "unsandboxed (reason)": what the CLI and doctor
 * print.
 */
export function sandboxLine(info: SandboxInfo): string {
  if (info.state === 'unsandboxed') return `unsandboxed (${info.reason ?? 'no reason given'})`;
  return `sandboxed (${info.kind ?? 'os'}${info.network === false ? ', no network' : ''})`;
}

/** Ends a host process group gently: HUP and TERM, then KILL after a grace period (processes/endGently.ts). */
export type KillGroup = (hostPgid: number, graceMs: number) => Promise<void>;

/** A program to start (spawn's file and args) so that it runs inside the sandbox. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  /** Where to spawn it (bwrap sets the cwd inside itself; sandbox-exec runs the program where it was started). */
  cwd: string;
}

export interface SandboxTarget {
  setting: SandboxSetting | undefined;
  /** The target's workspace (its cwd), absolute. */
  workspace: string;
  /** SWITCHBOARD_HOME. */
  profile: string;
  /** A short stable id of the runtime identity (names its folder). */
  id: string;
}

/** One runtime identity's sandbox. */
export class Sandbox {
  /** The policy as of the last start: what exists is looked at again each time (a cwd made later is bound then). */
  policy: SandboxPolicy;

  private constructor(
    readonly kind: SandboxKind,
    private readonly input: PolicyInput,
    private readonly killGroup: KillGroup,
  ) {
    this.policy = sandboxPolicy(input);
  }

  /** The target's sandbox, or why it has none (its spec says off, or none can run here). */
  static for(
    target: SandboxTarget,
    killGroup: KillGroup,
    available: SandboxAvailability = sandboxAvailability(),
  ): Sandbox | { unsandboxed: string } {
    const info = sandboxInfo(target.setting, available);
    if (info.state === 'unsandboxed' || !available.ok) return { unsandboxed: info.reason ?? 'no sandbox' };
    const home = homedir();
    const identityDir = join(target.profile, 'state', 'sandbox', target.id);
    return new Sandbox(
      available.kind,
      {
        setting: target.setting,
        home,
        profile: target.profile,
        workspace: target.workspace,
        identityDir,
        exists: existsSync,
        isDir: (p) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false,
      },
      killGroup,
    );
  }

  /** The exports file of the identity: in its folder, which the sandbox sees at the same path. */
  get envFile(): string {
    return join(this.policy.identityDir, 'env.sh');
  }

  /** Create what the sandbox binds (the identity's folder and tmp, the usual package caches). Idempotent and cheap. */
  prepare(): void {
    if (existsSync(this.policy.tmp)) return;
    mkdirSync(this.policy.tmp, { recursive: true, mode: 0o700 });
    for (const c of CREATED_CACHES) {
      const p = join(homedir(), c);
      if (!existsSync(p)) {
        try {
          mkdirSync(p, { recursive: true });
        } catch {
          /* a home that cannot take it: the cache is simply not bound (the policy lists only what exists) */
        }
      }
    }
  }

  /** The command line that runs `argv` inside, starting in `cwd`; `newSession` for every run without a pty. */
  command(argv: readonly string[], opts: { cwd: string; newSession: boolean }): SandboxedCommand {
    this.prepare();
    this.policy = sandboxPolicy(this.input);
    if (this.kind === 'seatbelt') {
      return { file: '/usr/bin/sandbox-exec', args: ['-p', seatbeltProfile(this.policy), ...argv], cwd: opts.cwd };
    }
    return {
      file: 'bwrap',
      args: bwrapArgs(this.policy, { argv, cwd: opts.cwd, newSession: opts.newSession }),
      cwd: '/',
    };
  }

  /** Environment the sandboxed program is given on top of the target's: its tmp. */
  env(): Record<string, string> {
    return { TMPDIR: this.kind === 'seatbelt' ? this.policy.tmp : '/tmp' };
  }

  /**
   * Kill a process group a program inside reported (`$BASHPID` of a warm call: a namespace id), through the host id
   * of that group. `runner` is the bwrap process the program runs under. On macOS the id is the host's.
   */
  async killReportedGroup(runner: ChildProcess, pgid: number, graceMs: number): Promise<void> {
    if (this.kind === 'seatbelt') return this.killGroup(pgid, graceMs);
    const ns = runner.pid === undefined ? undefined : namespaceOf(runner.pid);
    const host = ns ? hostGroup(ns, pgid) : undefined;
    if (host !== undefined) await this.killGroup(host, graceMs);
  }

  /**
   * End a whole sandboxed run gently: HUP and TERM to every process inside, then, after the grace period (or once
   * only the namespace's init is left), KILL to bwrap, whose death takes the namespace's init and so everything inside
   * with it (--die-with-parent; a pid namespace ends with its init). A shell whose exit would end the namespace early
   * waits for the rest in its EXIT trap (local/localProvider.ts SANDBOX_SHELL_EXIT). Resolves once bwrap has exited.
   * Tracked.
   */
  killAll(runner: ChildProcess, graceMs: number): Promise<void> {
    const pid = runner.pid;
    if (pid === undefined || runner.exitCode !== null || runner.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => runner.once('exit', () => resolve()));
    if (this.kind !== 'bubblewrap') {
      for (const sig of GENTLE_SIGNALS) sendSignal(-pid, sig);
      return tracked(
        untilGone(
          () => runner.exitCode === null && runner.signalCode === null,
          () => sendSignal(-pid, 'SIGKILL'),
          graceMs,
        ).then(() => exited),
      );
    }
    const ns = namespaceOf(pid);
    // Every process but the namespace's init, and not the ones already ended (a zombie answers signal 0).
    const inside = (): number[] =>
      ns
        ? namespaceMembers(ns)
            .filter((m) => m.nsPid !== 1 && !m.zombie)
            .map((m) => m.hostPid)
        : [];
    // Those there now: a process a trap starts while it cleans up is not sent the signal its trap is handling.
    const found = inside();
    for (const sig of GENTLE_SIGNALS) for (const p of found) sendSignal(p, sig);
    // The namespace's init first (the kernel then ends everything in it), then bwrap: a bwrap killed while it was
    // still setting up may not yet have armed --die-with-parent in its child.
    const kill = (): void => {
      if (runner.exitCode !== null || runner.signalCode !== null) return;
      for (const init of childrenOf(pid)) sendSignal(init, 'SIGKILL');
      sendSignal(pid, 'SIGKILL');
    };
    return tracked(
      untilGone(() => inside().length > 0, kill, graceMs).then(() => {
        kill();
        return exited;
      }),
    );
  }

  /** The identity is gone for good: its folder (tmp, exports) goes too. */
  removeState(): void {
    rmSync(this.policy.identityDir, { recursive: true, force: true });
  }
}
