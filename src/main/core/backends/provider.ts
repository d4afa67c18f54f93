// The contract every backend implements: a provider that classifies and creates Environments.
import type { ProviderFlags, SandboxInfo, TargetSpec } from '../../../shared/targets.js';
import type { SpecDeclaration } from '../../../shared/specFields.js';
import type { FileStat, Log } from '../platform/index.js';

export type { FileStat };

/** A frozen view of one target, taken once per dispatch; every later step uses it. */
export interface TargetSnapshot {
  readonly name: string;
  readonly generation: string;
  /** `name#generation`. */
  readonly identity: string;
  readonly source: 'config' | 'runtime';
  readonly state: 'active' | 'draining';
  readonly spec: Readonly<TargetSpec>;
  readonly flags: Readonly<ProviderFlags>;
  /** The default command timeout in seconds (spec, then terminal.timeout, then 180). */
  readonly timeoutSec: number;
}

export interface ExecOptions {
  /**
   * Absolute directory the command starts in. When it is gone the backend falls back to its nearest existing
   * parent and says so in the output, unless `cwdMustExist`.
   */
  cwd: string;
  /** The caller named `cwd` (a workdir): when it does not exist the call fails with bad_request and nothing runs. */
  cwdMustExist?: boolean;
  timeoutMs: number;
  /** Kept: the first and the last half of this many chars; the cut is said in the output. */
  maxOutputChars: number;
  /**
   * Receives what the command prints as it arrives, whole however long (the wrapper's own lines left out): a call's
   * output is kept for read_output and counted for progress.
   */
  onOutput?: (text: string) => void;
  env?: Record<string, string>;
  stdin?: string;
  signal?: AbortSignal;
  /**
   * Run this one command outside the target's OS sandbox (where it has one). Set only by the terminal tool for a
   * call a person approved once (`outside_sandbox: true`); a backend without a sandbox ignores it.
   */
  outsideSandbox?: boolean;
  /**
   * A look the Core takes for itself (the approval step's probe of the target), not the agent's call: what the
   * backend has to tell the next call (a container started again) is left for that call.
   */
  lookOnly?: boolean;
}

export interface ExecResult {
  output: string;
  exitCode: number;
  /** Where the shell stood when the command ended (after any `cd`). */
  cwd: string;
  timedOut: boolean;
  truncated: boolean;
}

/** An interactive shell on a pty (a local pty, an SSH pty channel, a docker exec with tty). */
export interface ShellChannel {
  onData(listener: (data: string) => void): void;
  /**
   * The same output as raw bytes, for a consumer that forwards it without decoding (panes): use it instead of
   * `onData`. `data` may be a view into memory the channel reuses for its next read: copy what you keep. Optional: a
   * channel without it is read through `onData`.
   */
  onBytes?(listener: (data: Uint8Array) => void): void;
  onExit(listener: (exitCode: number | null, reason?: string) => void): void;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Stop reading for flow control; `resume` starts again. May be a no-op. */
  pause(): void;
  resume(): void;
  kill(): void;
}

/** A process started in the background; output streams until it exits. */
export interface BackgroundHandle {
  onData(listener: (data: string) => void): void;
  onExit(listener: (exitCode: number | null, reason?: string) => void): void;
  /** Write to stdin; throws `unsupported` where the backend cannot. */
  write(data: string): void;
  /** Kill the whole process group. */
  kill(): Promise<void>;
}

/** What a probe answers. */
export type ProbeResult = { ok: true; detail?: string } | { ok: false; problem: string };

/**
 * How the Core's health checks look at a target, never creating anything there (a probe must not start, or bill, a
 * sandbox): `environment` — an Environment's own probe costs next to nothing (Docker: an Engine ping and an inspect;
 * the container is made on first use only); a function — the backend's cheaper look of its own (local: a stat of the
 * cwd; SSH: a TCP connect; a plugin: the `probe` it declares); absent — no look at all: a target shows "not checked
 * yet" until a call on it says how it is.
 */
export type IdleProbe = 'environment' | ((snapshot: TargetSnapshot, ctx: ProviderContext) => Promise<IdleProbeResult>);

/** A look's answer; a reachable target may say its spec's cwd is missing (where work starts instead). */
export type IdleProbeResult = { ok: true; detail?: string; cwdProblem?: string } | { ok: false; problem: string };

/** A live connection to one runtime identity. Paths given to it are absolute. */
export interface Environment {
  readonly identity: string;
  /** The directory a target starts in when its spec has no cwd (the remote user's home, /root, …). */
  home(): Promise<string>;
  exec(command: string, opts: ExecOptions): Promise<ExecResult>;
  openShell(opts: { cwd: string; cols: number; rows: number; env?: Record<string, string> }): Promise<ShellChannel>;
  spawnBackground(command: string, opts: { cwd: string; env?: Record<string, string> }): Promise<BackgroundHandle>;
  readFile(path: string, maxBytes: number): Promise<Buffer>;
  /** Writes the whole file, creating parent directories. */
  writeFile(path: string, data: Buffer): Promise<void>;
  stat(path: string): Promise<FileStat>;
  /** Quick reachability check for doctor (the sidebar's health checks use the provider's `idleProbe`). */
  probe(): Promise<ProbeResult>;
  /** Release connections; `removed` is true when the target was removed (managed resources may go too). */
  cleanup(reason: 'idle' | 'removed' | 'shutdown'): Promise<void>;
}

/** Services the Core lends to providers (host-key prompts, other targets for jumps). */
export interface ProviderContext {
  /** SWITCHBOARD_HOME, for a provider's own state (known hosts store …). */
  readonly home: string;
  /** Resolve another target's spec by name (for ssh_jump). */
  resolveSpec(name: string): TargetSpec | undefined;
  /**
   * Ask the person to trust an unknown host key; resolves to the decision. `signal` aborts when the connection
   * that asked is gone (the server dropped the handshake): the prompt is withdrawn and its answer ignored.
   */
  confirmHostKey?(request: HostKeyRequest, signal?: AbortSignal): Promise<'trust_always' | 'trust_once' | 'reject'>;
  /**
   * Tell the Core a target's reachability changed (drives the sidebar's `unreachable`). `lasting`: a problem that a
   * look at the port cannot disprove (a changed host key, a refused login): only a connection that gets through
   * clears it.
   */
  reportReachability?(identity: string, problem: string | undefined, lasting?: boolean): void;
  /**
   * Tell the Core where a target's agent work runs, as the Environment found it (an attached container's own
   * settings, an SSH host with or without bubblewrap): it outranks the declaration's `sandboxFor` in TargetInfo, the
   * approval dialog and doctor.
   */
  reportSandbox?(identity: string, info: SandboxInfo): void;
  /**
   * Names of the Core's variables a person chose to hand to commands although they look like credentials
   * (`approvals.env_passthrough`); read at every start, so a config edit applies to the next process.
   */
  envPassthrough?(): readonly string[];
  /** Every installed plugin's strip_env_keys: withheld from every command on every backend, read at every start. */
  strippedEverywhere?(): readonly string[];
  /**
   * This Core run's id (processes/coreRuns.ts), for what a provider must find again after a crash (Docker: its
   * containers).
   */
  readonly coreRun?: string;
  /** The Core's log (core/log.ts), for what fails where no caller waits: a cleanup, a kill, a best-effort step. */
  readonly log?: Log;
}

/** What one place swept at a Core's start held: how many things were ended there, or why it could not be reached. */
export interface StartSweep {
  where: string;
  found: number;
  problem?: string;
}

/** A resource a backend created for a profile that nothing owns any more (Docker: a managed container). */
export interface OrphanInfo {
  /** Where it is (an engine's label). */
  where: string;
  name: string;
  /** The profile path it was made for (this profile, for one of its containers made before the path was recorded). */
  profile: string;
  target: string;
  /** Why it is an orphan. */
  why: string;
  created_at: string;
  size_bytes?: number;
}

export interface HostKeyRequest {
  target: string;
  host: string;
  port: number;
  keyType: string;
  /** `SHA256:…` as OpenSSH prints it. */
  fingerprint: string;
}

/**
 * What a backend declares without its factory: its spec (backend name, fields, the schema derived from them, a
 * one-line describe) and its classification flags. Readers without a Core (the CLI's `targets`, `approvals`) need
 * only this, so it loads no backend library.
 */
export interface BackendDeclaration extends SpecDeclaration {
  /** What the window and doctor call it ("SSH", "Bubblewrap sandbox"); the backend name when absent. */
  readonly display_name?: string;
  /** The plugin that provides it; absent for a built-in. */
  readonly plugin?: string;
  /** The backend's flags; `flagsFor` refines them for one target's spec (Docker: host mounts, attached containers). */
  readonly flags: ProviderFlags;
  flagsFor?(spec: Readonly<TargetSpec>): ProviderFlags;
  /** Why no target of this backend can be reached right now (its plugin's host is down …); undefined when it can. */
  unavailable?(): string | undefined;
  /**
   * Where a target's agent work runs as its spec says (local: in an OS sandbox or unsandboxed, and why; a managed
   * container: what Switchboard makes); undefined when the spec cannot say (an attached container: its Environment
   * reports what it finds, ProviderContext.reportSandbox). Absent for backends that say nothing (plugins).
   */
  sandboxFor?(spec: Readonly<TargetSpec>): SandboxInfo | undefined;
  /**
   * The host a remote backend's commands run on (SSH: `ssh_host`), for doctor's warning when it is this machine: there
   * no local sandbox stands between them and the person's files.
   */
  remoteHost?(spec: Readonly<TargetSpec>): string | undefined;
  /**
   * Its targets can be written from a destination (`user@host:port`, targets.quickSpec): the Add-target form offers
   * Quick connect for this backend only.
   */
  readonly quick_connect?: boolean;
}

/** A factory plus declarations for one backend name. Everything outside the provider reads these, never the name. */
export interface BackendProvider extends BackendDeclaration {
  createEnvironment(snapshot: TargetSnapshot, ctx: ProviderContext): Environment;
  /** How the health checks look at its targets (see IdleProbe); absent: they do not. */
  readonly idleProbe?: IdleProbe;
  /**
   * At a Core's start, with the ids of runs that died without a clean stop: ends what they left beyond any one target's
   * processes (Docker: the managed containers they made running), which the sweep on first reach cannot see.
   */
  afterCrashedRuns?(home: string, stale: readonly string[]): Promise<StartSweep[]>;
  /**
   * What this backend made for a profile that no longer exists, or for a target of `home` that is gone (`specs`: every
   * target of `home` now, by identity; `ownKnown` false when they could not all be read, so none of `home`'s is
   * judged), on the places it knows (`specs`' engines and its default). `remove` removes them.
   */
  orphans?(
    home: string,
    specs: ReadonlyMap<string, Readonly<TargetSpec>>,
    ownKnown: boolean,
  ): Promise<{ orphans: OrphanInfo[]; problems: string[]; remove(): Promise<string[]> }>;
}

/**
 * Every flag filled in from what a provider declares: the defaults are plugins/PluginFlags' (nothing remote, no
 * container, no streams), and `skip_container_guards` follows `is_container` unless declared.
 */
export function withFlagDefaults(declared: Partial<ProviderFlags>): ProviderFlags {
  const isContainer = declared.is_container ?? false;
  const streams = declared.supports_streams ?? false;
  return {
    is_remote: declared.is_remote ?? false,
    is_container: isContainer,
    skip_container_guards: declared.skip_container_guards ?? isContainer,
    supports_streams: streams,
    supports_pty: declared.supports_pty ?? false,
    supports_stdin: declared.supports_stdin ?? streams,
    strip_env_keys: [...(declared.strip_env_keys ?? [])],
    cache_path_base: declared.cache_path_base ?? '~/.cache/switchboard',
    session_isolated_when_nonpersistent: declared.session_isolated_when_nonpersistent ?? false,
    default_cwd: declared.default_cwd ?? '~',
  };
}

/** The flags one target of this provider has. */
export function flagsOf(
  provider: Pick<BackendProvider, 'flags' | 'flagsFor'>,
  spec: Readonly<TargetSpec>,
): ProviderFlags {
  return provider.flagsFor?.(spec) ?? provider.flags;
}
