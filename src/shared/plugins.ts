// What a plugin is (its manifest), what the Core says of one (`plugins.list`), and the API a plugin's module is handed.
import * as z from 'zod';
// The larger schemas are z.lazy: built on first use, so a process that never parses one (`switchboard call`) does not
// build it; z.lazy accepts exactly what the schema inside accepts.
import type { SpecFieldDecl } from './specFields.js';

/** A backend or plugin name: lower-case letters, digits and `_`, starting with a letter. */
export const PluginName = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'a name is lower-case letters, digits and _, starting with a letter')
  .max(64);

/**
 * The powers a plugin asks for, in its manifest: what a person is shown before installing or enabling it (read
 * without running its code), and the most its backends get — a backend that declares more at load is held to these.
 * Absent keys are `false` (`skip_container_guards` follows `is_container`).
 */
export const ManifestFlags = z
  .object({
    is_remote: z.boolean(),
    is_container: z.boolean(),
    skip_container_guards: z.boolean(),
    supports_streams: z.boolean(),
    supports_pty: z.boolean(),
  })
  .partial()
  .strict();
export type ManifestFlags = z.infer<typeof ManifestFlags>;

/** `plugins/<name>/plugin.yaml` (or the `switchboard` field of an npm package's package.json). */
export const PluginManifest = z.lazy(() =>
  z
    .object({
      name: PluginName,
      version: z.string().min(1).max(64),
      kind: z.literal('backend'),
      /** The ES module, relative to the plugin's folder, that exports `register(ctx)`. */
      entry: z.string().min(1).max(512),
      description: z.string().max(500).optional(),
      flags: ManifestFlags.optional(),
    })
    .strict(),
);
export type PluginManifest = z.infer<typeof PluginManifest>;

/**
 * One plugin as the Core sees it. `state`: `disabled` (installed, not enabled — the default), `active` (loaded, its
 * backends registered), `refused` (it claimed a reserved or taken name), `failed` (its manifest or module is broken,
 * or its host crashed and has not come back), `loading`.
 */
export const PluginInfo = z.lazy(() =>
  z.object({
    name: z.string(),
    version: z.string().optional(),
    description: z.string().optional(),
    dir: z.string(),
    enabled: z.boolean(),
    state: z.enum(['disabled', 'loading', 'active', 'refused', 'failed']),
    /** The backend names it registered (or tried to). */
    backends: z.array(z.string()),
    /** One line: why it is refused or failed. */
    problem: z.string().optional(),
    /** What its manifest asks for (`pluginFlagSentences` says it in words); absent when the manifest cannot be read. */
    flags: ManifestFlags.optional(),
  }),
);
export type PluginInfo = z.infer<typeof PluginInfo>;

// ---------------------------------------------------------------------------------------------------------------
// The plugin author's API. A plugin module runs in the plugin host process (never in the Core) and exports
// `register(ctx: PluginContext)`. Names are snake_case, as plugin authors from Hermes Agent know them.
// ---------------------------------------------------------------------------------------------------------------

/** Flags a plugin declares; every one is optional and has the default written next to it. */
export interface PluginFlags {
  /** Commands run on another machine (false). Drives cwd handling: `~` and paths are the remote side's. */
  is_remote?: boolean;
  /** Commands run inside a sandbox or container (false). */
  is_container?: boolean;
  /** Skip asking for dangerous commands (hardline ones are refused anyway); defaults to `is_container`. */
  skip_container_guards?: boolean;
  /** Where the backend keeps its cache on the target (`~/.cache/switchboard`). */
  cache_path_base?: string;
  /** Variable names never handed to this backend's commands, on top of the credential list ([]). */
  strip_env_keys?: string[];
  /** A target of this backend that does not persist gets a fresh environment per session (false). */
  session_isolated_when_nonpersistent?: boolean;
  /** Where commands start when a target names no cwd: absolute or `~` (`~`). */
  default_cwd?: string;
  /** Interactive panes and background processes with stdin: the environment has `open_shell` (false). */
  supports_streams?: boolean;
  /** `open_shell` gives a real pty (resize works, programs see a terminal) (false). */
  supports_pty?: boolean;
}

/** A command's result. `cwd`, when given, is where the shell stood at the end. */
export interface PluginExecResult {
  output: string;
  exit_code: number;
  timed_out?: boolean;
}

export interface PluginExecOptions {
  /**
   * Absolute directory to start in. The Core's wrapper changes into the identity's cwd itself, so this is `/` for
   * the commands the Core sends; start there (any existing directory does).
   */
  cwd: string;
  /** End the command (its whole process group) after this long and return `timed_out: true`. */
  timeout_ms: number;
  /**
   * The complete environment to hand the command (not additions): for a local backend the Core's own minus the
   * withheld names (credentials, `strip_env_keys`); for an `is_remote` one only what a person passed through.
   * Pass it as the child's env; do not merge process.env into it.
   */
  env?: Record<string, string>;
  stdin?: string;
}

/** A running shell or background process: output streams until it exits. */
export interface PluginStream {
  on_data(listener: (data: string) => void): void;
  on_exit(listener: (exit_code: number | null, reason?: string) => void): void;
  write(data: string): void;
  resize?(cols: number, rows: number): void;
  kill(): void | Promise<void>;
}

export interface PluginFileStat {
  type: 'file' | 'directory' | 'other' | 'missing';
  size: number;
}

/**
 * A live environment for one runtime identity. `exec` runs a POSIX `sh` command line in `cwd` (the Core wraps it to
 * keep the identity's cwd and exported variables; the plugin runs it as given, e.g. `sh -c command`). The rest is
 * optional: without file operations the Core uses exec-based ones (head -c | base64, base64 chunks then base64 -d,
 * test and wc -c); without `open_shell` no pane is offered ("no interactive shell on this
 * backend"); without `spawn_background` a background command fails with "no background processes on this backend".
 * A call that does not answer in time (exec: its timeout_ms plus 10 s) counts as a hang: the host is restarted.
 */
export interface PluginEnvironment {
  exec(command: string, opts: PluginExecOptions): Promise<PluginExecResult>;
  /** The directory commands start in when a target names no cwd (the user's home). */
  home?(): Promise<string>;
  open_shell?(opts: { cwd: string; cols: number; rows: number; env?: Record<string, string> }): Promise<PluginStream>;
  spawn_background?(command: string, opts: { cwd: string; env?: Record<string, string> }): Promise<PluginStream>;
  read_file?(path: string, max_bytes: number): Promise<Uint8Array>;
  write_file?(path: string, data: Uint8Array): Promise<void>;
  stat?(path: string): Promise<PluginFileStat>;
  /** Quick reachability check for doctor and the sidebar. */
  probe?(): Promise<{ ok: true; detail?: string } | { ok: false; problem: string }>;
  /** `removed`: the target is gone, its resources may go too. */
  cleanup?(reason: 'idle' | 'removed' | 'shutdown'): Promise<void>;
}

export interface PluginDoctorCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

/** One backend a plugin adds. */
export interface PluginBackendProvider {
  /** The backend name targets use (`backend: bwrap`): `[a-z][a-z0-9_]*`, not a built-in's. */
  name: string;
  /** What the window and doctor call it ("Bubblewrap sandbox"). */
  display_name: string;
  /** The spec fields beyond the common `cwd` and `timeout`. */
  fields?: SpecFieldDecl[];
  /** Groups of keys of which a spec sets exactly one. */
  exactly_one?: string[][];
  flags?: PluginFlags;
  /**
   * The flags of one target, when they depend on its spec: key by key they replace `flags` (a sandbox that binds host
   * folders read-write answers `{ skip_container_guards: false }`). Until it answered for a spec, that target's
   * commands ask; whatever it answers, a spec that names host paths read-write never skips asking.
   */
  flags_for?(spec: Record<string, unknown>): PluginFlags | Promise<PluginFlags>;
  /** Can this backend run on this machine at all (the program it needs is installed …)? */
  is_available?(): boolean | Promise<boolean>;
  /** Problems with one target's spec that its schema cannot see (a file that is missing …); [] when none. */
  check_requirements?(spec: Record<string, unknown>): string[] | Promise<string[]>;
  doctor_checks?(): PluginDoctorCheck[] | Promise<PluginDoctorCheck[]>;
  /**
   * Is this target there and answering, looked at without an environment (one API call, a TCP connect)? The Core's
   * health checks call only this, spread over the minute; they never create an environment to look. Without it a
   * target nobody used shows "not checked yet", and what calls on it meet is its health. `secrets` as in
   * create_environment.
   */
  probe?(
    spec: Record<string, unknown>,
    secrets: Record<string, string>,
  ): Promise<{ ok: true; detail?: string } | { ok: false; problem: string }>;
  create_environment(opts: {
    cwd: string;
    /** The target's default command timeout in seconds. */
    timeout: number;
    /** `name#generation`: state kept per identity (a sandbox, a session) must not be shared across identities. */
    runtime_identity: string;
    spec: Record<string, unknown>;
    /**
     * NAME → value of each environment variable the spec's `secret_ref` fields name (`token_env: SANDBOX_API_TOKEN`
     * gives `secrets.SANDBOX_API_TOKEN`), read from Switchboard's environment. The plugin host itself runs without
     * the Core's credentials: a plugin reads its secrets here, not from process.env. A variable that is not set is
     * absent.
     */
    secrets: Record<string, string>;
  }): PluginEnvironment | Promise<PluginEnvironment>;
}

/** What `register(ctx)` is handed. */
export interface PluginContext {
  registerBackendProvider(provider: PluginBackendProvider): void;
  /** The plugin's own manifest and folders; `data_dir` is a writable folder kept for it in the profile. */
  readonly plugin: { name: string; version: string; dir: string; data_dir: string };
  /** A line in the plugin host's log (`plugins/.host.log`). */
  log(message: string): void;
}
