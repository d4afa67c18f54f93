// The Sandbox: the OS boundary agent work on a local target runs in (bubblewrap on Linux, Seatbelt on macOS). The
// pure parts are sandboxPolicy.ts, bwrapArgs.ts and seatbelt.ts; this is the thin shell around them: where the
// identity's folder is, the command line that runs a program inside, and killing across the PID namespace.
// Over 380 lines: the folder, the command line and the kill share one Sandbox's state; what is pure is elsewhere.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  rmSync,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import type { SandboxInfo } from '../../../shared/targets.js';
import type { SandboxSetting } from '../../../shared/specFields.js';
import { bwrapArgs } from './bwrapArgs.js';
import { seatbeltProfile } from './seatbelt.js';
import { mountSignature, sandboxPolicy, type PolicyInput, type SandboxPolicy } from './sandboxPolicy.js';
import { isPlaceholder, sweepPlaceholders, usePlaceholders } from './placeholders.js';
import { findRepositories, submoduleGitDirs } from './repositories.js';
import { seccompArch, seccompProgram, type SeccompArch } from './seccomp.js';
import { SandboxNet } from './sandboxNet.js';
import { applyLimits, type AppliedLimits } from './sandboxLimits.js';
import type { Writable } from 'node:stream';
import { sandboxAvailability, type SandboxAvailability, type SandboxKind } from './sandboxAvailability.js';
import { childrenOf, hostGroup, namespaceMembers, namespaceOf } from './pidNamespace.js';
import { GENTLE_SIGNALS, sendSignal, tracked, untilGone } from '../platform/index.js';

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
  const on = info.host ? ` on ${info.host}` : '';
  return `sandboxed (${info.kind ?? 'os'}${on}${info.network === false ? ', no network' : ''})`;
}

/** Ends a host process group gently: HUP and TERM, then KILL after a grace period (processes/endGently.ts). */
export type KillGroup = (hostPgid: number, graceMs: number) => Promise<void>;

/** What a sandboxed run is started with. */
export interface SandboxSpawnOptions {
  /** Where the program starts, inside the sandbox. */
  cwd: string;
  /** Its environment (the sandbox adds its own: TMPDIR, the build caches). */
  env: Record<string, string>;
  /** Its stdin: a pipe of the caller's, or none. */
  stdin: 'pipe' | 'ignore';
  /** A new session (no controlling terminal): every run without a pty. */
  newSession: boolean;
  /** A Node IPC channel (advanced serialization) to the program: a sandbox helper. */
  ipc?: boolean;
  /** No network at all, whatever the target's setting (the file server needs none). */
  offline?: boolean;
}

export interface SandboxTarget {
  setting: SandboxSetting | undefined;
  /** The target's workspace (its cwd), absolute. */
  workspace: string;
  /** SWITCHBOARD_HOME. */
  profile: string;
  /** A short stable id of the runtime identity (names its folder). */
  id: string;
  /** A short stable id of the target's name (names its build caches, kept across generations). */
  cachesId: string;
}

/** How long a walk for repositories (repositories.ts) is reused before the next run looks again. */
const REPOSITORY_WALK_REUSE_MS = 10_000;
/**
 * How long the file server's mounts are taken as current before they are looked at again (a workspace or repository
 * made since is in its mounts within this long).
 */
const POLICY_REUSE_MS = 2000;

/** O_PATH: a descriptor that names a file or folder without opening it for reading (Linux). */
const O_PATH = 0o10000000;

/**
 * A file or folder the sandbox binds writable, opened and checked: what its path says, no link anywhere in it. The
 * descriptor (O_PATH, so no read permission is needed) is what bwrap binds.
 */
function openChecked(path: string, whose: string): number {
  let fd: number;
  try {
    fd = openSync(path, O_PATH | constants.O_NOFOLLOW);
  } catch (err) {
    throw new SwitchboardError(
      'bad_request',
      `the sandbox cannot start: ${whose} ${path}: ${(err as Error).message}`,
      'a folder an agent may write is bound by its own path only; name the real folder',
    );
  }
  const st = fstatSync(fd);
  const real = readlinkSync(`/proc/self/fd/${fd}`);
  if (st.isSymbolicLink() || real !== path) {
    closeSync(fd);
    throw new SwitchboardError(
      'bad_request',
      st.isSymbolicLink()
        ? `the sandbox cannot start: ${whose} ${path} is a link`
        : `the sandbox cannot start: ${whose} ${path} goes through a link (it is ${real})`,
      `a link inside what an agent may write could be swapped to bind another place writable; name the real path`,
    );
  }
  return fd;
}

const programs = new Map<string, boolean>();
/** Whether a program is on the Core's PATH (asked once per program and process). */
function onPath(program: string): boolean {
  let found = programs.get(program);
  if (found === undefined) {
    found = (process.env.PATH ?? '')
      .split(':')
      .some((d) => isAbsolute(d) && statSync(join(d, program), { throwIfNoEntry: false })?.isFile() === true);
    programs.set(program, found);
  }
  return found;
}

/** One runtime identity's sandbox. */
export class Sandbox {
  /** The policy as of the last start: what exists is looked at again each time (a cwd made later is bound then). */
  policy: SandboxPolicy;
  private repositories: { at: number; found: string[]; gitDirs: string[] } | undefined;
  private policyAt = 0;
  /** The sandbox's network, when it has one (bubblewrap, `network` not false). */
  private readonly net: SandboxNet | undefined;
  /** Its processes and memory limits, set up on its first run. */
  private limitsApplied: AppliedLimits | undefined;

  private constructor(
    readonly kind: SandboxKind,
    private readonly arch: SeccompArch,
    private readonly input: PolicyInput,
    private readonly killGroup: KillGroup,
    private readonly identityDir: string,
  ) {
    this.policy = sandboxPolicy(input);
    sweepPlaceholders(this.placeholderRecord);
    const setting = input.setting === 'off' ? undefined : input.setting;
    this.net =
      kind === 'bubblewrap' && this.policy.network
        ? new SandboxNet(
            arch,
            { allowHosts: setting?.allow_hosts, allowLocalPorts: setting?.allow_local_ports ?? [] },
            join(identityDir, 'net'),
            () => this.limits().prefix,
          )
        : undefined;
  }

  /** The sandbox's limits (made on first use: a cgroup, or a process limit), with what could not be had. */
  limits(): AppliedLimits {
    if (!this.limitsApplied) {
      const setting = this.input.setting === 'off' ? {} : (this.input.setting ?? {});
      this.limitsApplied =
        this.kind === 'bubblewrap'
          ? applyLimits(basename(this.identityDir), setting)
          : {
              prefix: [],
              describe: 'processes and memory not limited (Seatbelt has no limits)',
              release: () => undefined,
            };
    }
    return this.limitsApplied;
  }

  /** Ready to start runs: the sandbox's network is up (it is started on first use). */
  async ready(): Promise<void> {
    await this.net?.ready();
  }

  /** Called when the sandbox's network had to be started again (runs started before have none any more). */
  onNetworkRestart(listener: () => void): void {
    this.net?.onRestart(listener);
  }

  /** The latest connections the proxy refused (for a failed call's note). */
  refusedConnections(): string[] {
    return this.net?.recentRefusals() ?? [];
  }

  /** End what the sandbox keeps running beside its runs (its network), and remove its cgroup. */
  async close(): Promise<void> {
    await this.net?.close();
    this.limitsApplied?.release();
    this.limitsApplied = undefined;
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
    const arch = seccompArch();
    if (!arch && available.kind === 'bubblewrap') return { unsandboxed: `no seccomp filter for ${process.arch}` };
    return new Sandbox(
      available.kind,
      arch ?? 'x86_64',
      {
        setting: target.setting,
        home,
        profile: target.profile,
        workspace: target.workspace,
        tmp: join(identityDir, 'tmp'),
        caches: join(target.profile, 'state', 'caches', target.cachesId),
        pathDirs: (process.env.PATH ?? '').split(':').filter((d) => isAbsolute(d)),
        // A placeholder still in use is missing to the policy: the same protected path keeps the same mounts.
        exists: (p) => existsSync(p) && !isPlaceholder(p),
        isDir: (p) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false,
        hasTool: onPath,
      },
      killGroup,
      identityDir,
    );
  }

  /**
   * The exports file, as the shells inside see it: in the identity's private /tmp. Only shells inside the sandbox
   * read it; nothing outside ever sources it (a call let out of the sandbox starts without it).
   */
  get envFile(): string {
    return this.kind === 'seatbelt'
      ? join(this.policy.tmp, '.switchboard', 'exports.sh')
      : '/tmp/.switchboard/exports.sh';
  }

  /** Create the Core's own folders the sandbox binds (the identity's private tmp, the target's caches). Cheap. */
  prepare(): void {
    for (const dir of [this.policy.tmp, this.policy.caches]) {
      if (dir && !existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    }
  }

  /** The policy for a run starting now: what exists, and the repositories under the writable roots. */
  private currentPolicy(): SandboxPolicy {
    const now = Date.now();
    if (!this.repositories || now - this.repositories.at > REPOSITORY_WALK_REUSE_MS) {
      const roots = sandboxPolicy(this.input).writable;
      const found = findRepositories(roots);
      this.repositories = { at: now, found, gitDirs: submoduleGitDirs(found) };
    }
    this.policyAt = now;
    const { found: repositories, gitDirs } = this.repositories;
    return (this.policy = sandboxPolicy({ ...this.input, repositories, gitDirs }));
  }

  /**
   * Start `argv` inside the sandbox: stdout and stderr piped. The writable folders are opened and checked here and
   * handed to bwrap as descriptors; the placeholders the policy needs are made and kept until the run has exited.
   */
  spawn(argv: readonly [string, ...string[]], opts: SandboxSpawnOptions): ChildProcess {
    this.prepare();
    const policy = this.currentPolicy();
    const env = { ...opts.env, ...this.env(), ...(opts.offline ? {} : this.net?.env()) };
    if (this.kind === 'seatbelt') {
      const release = usePlaceholders([], this.placeholderRecord);
      const child = spawn('/usr/bin/sandbox-exec', ['-p', seatbeltProfile(policy), ...argv], {
        cwd: opts.cwd,
        detached: true,
        env,
        stdio: [opts.stdin, 'pipe', 'pipe'],
      });
      child.once('exit', release);
      return child;
    }
    const release = usePlaceholders(policy.placeholders, this.placeholderRecord);
    const fds: number[] = [];
    // The child's descriptors: stdin, stdout, stderr, the IPC channel where asked, the binds, the seccomp filter.
    const first = opts.ipc ? 4 : 3;
    try {
      // One descriptor per bind (bwrap closes each it binds): a root inside the profile is bound twice.
      const fdOf = new Map<string, number[]>();
      const open = (path: string, whose: string): void => {
        const fd = first + fds.push(openChecked(path, whose)) - 1;
        fdOf.set(path, [...(fdOf.get(path) ?? []), fd]);
      };
      open(policy.tmp, "the identity's private /tmp");
      if (policy.caches) open(policy.caches, "the target's build caches");
      for (const w of [...policy.writable, ...policy.insideProfile]) open(w, 'the writable folder');
      for (const d of policy.pins) open(d, 'the folder');
      // The seccomp filter goes in through a pipe of its own, after the descriptors (bwrap reads it, then closes it).
      const seccompFd = first + fds.length;
      // A networked run enters the namespaces of the sandbox's network; one without network gets one of its own.
      const join = opts.offline ? undefined : this.net?.joinPrefix();
      if (this.net && !opts.offline && !join)
        throw new SwitchboardError('internal', "the sandbox's network is not up (the caller waits for ready())");
      const args = bwrapArgs(
        policy,
        { argv, cwd: opts.cwd, newSession: opts.newSession, unshareNet: join === undefined },
        { fd: (p) => fdOf.get(p)?.shift(), seccomp: seccompFd },
      );
      const [file, ...rest] = [...this.limits().prefix, ...(join ?? []), 'bwrap', ...args];
      const child = spawn(file!, rest, {
        cwd: '/',
        detached: true,
        env,
        stdio: [opts.stdin, 'pipe', 'pipe', ...(opts.ipc ? ['ipc' as const] : []), ...fds, 'pipe'],
        ...(opts.ipc ? { serialization: 'advanced' as const } : {}),
      });
      const filter = child.stdio[seccompFd] as Writable | null;
      filter?.on('error', () => undefined); // bwrap that failed to start reads nothing: its own error says why
      filter?.end(seccompProgram(this.arch));
      child.once('exit', release);
      child.once('error', release);
      return child;
    } catch (err) {
      release();
      throw err;
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  }

  /**
   * What decides the mounts of a run starting now: a file server started with other mounts is started again. What
   * exists does not count (a placeholder made since is the same protected path).
   */
  mountSignature(): string {
    // Looked at again at most every POLICY_REUSE_MS: a file operation should cost a message, not a walk of the rows.
    return mountSignature(Date.now() - this.policyAt < POLICY_REUSE_MS ? this.policy : this.currentPolicy());
  }

  private get placeholderRecord(): string {
    return join(this.input.profile, 'state', 'sandbox', 'placeholders.json');
  }

  /** Environment the sandboxed program is given on top of the target's: its tmp, the target's build caches. */
  env(): Record<string, string> {
    return { ...this.policy.env, TMPDIR: this.kind === 'seatbelt' ? this.policy.tmp : '/tmp' };
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

  /** The identity is gone for good: its folder (tmp, exports) goes too; the target's caches stay. */
  removeState(): void {
    rmSync(this.identityDir, { recursive: true, force: true });
  }
}
