// What a target is: any spec before its backend checks it, provider flags, and what the UI and CLI see of a target.
import * as z from 'zod';
import { looksLikeSecretValue } from './redact.js';
// The larger schemas are z.lazy: built on first use, so a process that never parses one (`switchboard call`) does not
// build it; z.lazy accepts exactly what the schema inside accepts.

/** A target name: what config keys, CLI arguments and `execution_target` use. */
export const TargetName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'a target name is 1-64 of A-Z a-z 0-9 . _ - and starts with a letter or digit',
  );

/**
 * Any target's spec before its backend's schema has checked it: a backend name, the common keys, and more.
 * The fixed schema per backend is derived from the backend's declared fields (src/shared/specFields.ts), whose
 * commonFields declare cwd and timeout for the form and the CLI; these two lines only pre-check them.
 */
export const AnySpec = z.looseObject({
  backend: z.string().min(1),
  cwd: z.string().min(1).optional(),
  timeout: z.number().int().positive().max(86_400).optional(),
});
/** A spec of a plugin backend: checked by the plugin's own schema at resolve time. */
export const PluginSpec = AnySpec;
export type TargetSpec = z.infer<typeof AnySpec>;
/**
 * A config target of a plugin backend that is not loaded: any keys, checked by the plugin's schema once it loads.
 * (A record piped into AnySpec, so config loading sees no fixed keys to name unknown ones against.)
 */
export const dormantSpec = z.record(z.string(), z.unknown()).pipe(AnySpec);

export const TargetSource = z.enum(['config', 'runtime']);
export type TargetSource = z.infer<typeof TargetSource>;

export const TargetState = z.enum(['active', 'draining', 'unreachable', 'removed']);
export type TargetState = z.infer<typeof TargetState>;

/**
 * Classification a provider declares; policy reads these, never the backend name. The names are Hermes Agent's
 * (plugin authors know them); src/shared/plugins.ts says what each one changes and its default.
 */
export const ProviderFlags = z.lazy(() =>
  z.object({
    /** Commands run on another machine: `~` and paths are the remote side's. */
    is_remote: z.boolean(),
    /** Commands run inside a sandbox or container. */
    is_container: z.boolean(),
    /** Dangerous (not hardline) commands run without asking; a plugin's defaults to is_container. */
    skip_container_guards: z.boolean(),
    /** An interactive shell is a real pty (resize works, programs see a terminal). */
    supports_pty: z.boolean(),
    /** Background processes take stdin. */
    supports_stdin: z.boolean(),
    /**
     * Interactive panes (a shell stream) are offered; without it a pane says "no interactive shell on this backend".
     */
    supports_streams: z.boolean(),
    /** Variable names never handed to this backend's commands, on top of the credential list. */
    strip_env_keys: z.array(z.string()),
    /** Where the backend keeps its state on the target (the identity's exports file …): absolute or `~/…`. */
    cache_path_base: z.string(),
    /** A target that does not persist gets a fresh environment per session. */
    session_isolated_when_nonpersistent: z.boolean(),
    /** Where commands start when a target names no cwd: absolute or `~`. */
    default_cwd: z.string(),
  }),
);
export type ProviderFlags = z.infer<typeof ProviderFlags>;

/**
 * A target's health as the Core's probes saw it: `checking` while a probe runs (and before the first answer),
 * then `reachable` or `unreachable`; `unchecked` when its backend has no probe that costs nothing and no call went
 * there yet ("not checked yet"); `checked_at` is when the last probe answered.
 */
export const TargetHealthInfo = z.lazy(() =>
  z.object({
    status: z.enum(['checking', 'unchecked', 'reachable', 'unreachable']),
    checked_at: z.string().optional(),
    /** What the probe saw when it was fine ("127.0.0.1:2222", "box-1 running (debian)"). */
    detail: z.string().optional(),
  }),
);
export type TargetHealthInfo = z.infer<typeof TargetHealthInfo>;

/**
 * Where a target's agent work runs: `sandboxed` in an OS sandbox or a container (`kind`), or `unsandboxed` — with the
 * person's own powers over this machine (`sandbox: off`, or no sandbox can run here), or with the powers of the host a
 * container runs on (a privileged one, one with the engine's socket inside …) — `reason` says which. Absent where
 * nothing is known of it (a plugin backend; an attached container not inspected yet).
 */
export const SandboxInfo = z.lazy(() =>
  z.object({
    state: z.enum(['sandboxed', 'unsandboxed']),
    kind: z.enum(['bubblewrap', 'seatbelt', 'container']).optional(),
    /** Network inside the sandbox (`sandbox.network`; a container's network is not `none`). */
    network: z.boolean().optional(),
    /** Why it is unsandboxed: "sandbox: off in its spec", "it is privileged (--privileged)". */
    reason: z.string().optional(),
    /** What holds its work in, in one line: "a container you attached: runs as root, network none, …". */
    confinement: z.string().optional(),
    /** What to change so that it is held in (doctor says it beside the reason). */
    hint: z.string().optional(),
    /**
     * The account and host the work runs as, where that is not this machine ("deploy@build-01:22", an SSH target):
     * unsandboxed, the work has that account's powers there, not the person's here.
     */
    host: z.string().optional(),
  }),
);
export type SandboxInfo = z.infer<typeof SandboxInfo>;

/** What the UI, CLI and agents see of one target. Never holds a secret. */
export const TargetInfo = z.lazy(() =>
  z.object({
    name: z.string(),
    generation: z.string(),
    source: TargetSource,
    state: TargetState,
    backend: z.string(),
    /** Routing fields only (host, port, user, image …); never key material or passwords. */
    spec: z.record(z.string(), z.unknown()),
    cwd: z.string().optional(),
    provider: z.string().optional(),
    owner_id: z.string().optional(),
    is_default: z.boolean(),
    flags: ProviderFlags.optional(),
    /** Why the target is unreachable or shadowed, for the sidebar and doctor. */
    problem: z.string().optional(),
    /** What the Core's last probe found; absent before the first (a draining or removed target is not probed). */
    health: TargetHealthInfo.optional(),
    /** The spec's cwd does not exist there: what that means for commands and panes (one line). */
    cwd_problem: z.string().optional(),
    /**
     * Whether agent work runs in a sandbox or a container that holds it (the sidebar, pane header, `targets list` and
     * doctor say so): local targets from their spec, managed containers from what Switchboard makes, attached ones from
     * their own settings once inspected.
     */
    sandbox: SandboxInfo.optional(),
    created_at: z.string().optional(),
    updated_at: z.string().optional(),
  }),
);
export type TargetInfo = z.infer<typeof TargetInfo>;

/** `name#generation`: the immutable key of cwd, panes, processes and approvals. */
export function runtimeIdentity(name: string, generation: string): string {
  return `${name}#${generation}`;
}

export function parseRuntimeIdentity(id: string): { name: string; generation: string } | undefined {
  const at = id.lastIndexOf('#');
  if (at <= 0 || at === id.length - 1) return undefined;
  return { name: id.slice(0, at), generation: id.slice(at + 1) };
}

/** Spec keys that are never shown: the ones a backend declares private, and any whose name says it holds a secret. */
export function isPrivateKey(key: string, fields?: readonly { key: string; private: boolean }[]): boolean {
  if (fields?.some((f) => f.key === key && f.private)) return true;
  return /(^|_)(password|passwd|token|secret)(_|$)/i.test(key);
}

/** The routing fields of a spec, for display and --json; `fields` are its backend's declared ones. */
export function publicSpec(
  spec: Record<string, unknown>,
  fields?: readonly { key: string; private: boolean }[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec)) {
    if (isPrivateKey(k, fields)) continue;
    out[k] = isStringMap(v) ? maskedMap(v) : v;
  }
  return out;
}

/** The values of a NAME=value map, such as a shell's start-up environment. */
function isStringMap(v: unknown): v is Record<string, string> {
  return (
    v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string')
  );
}

/** A map shown with every value a secret could be in masked: by its name (API_TOKEN) or its shape (redact.ts). */
function maskedMap(map: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(map))
    out[name] = looksLikeSecretValue(value) || looksLikeSecretValue(`${name}=${value}`) ? '[redacted]' : value;
  return out;
}
/**
 * The registry provider of session targets (quick connect from the window): runtime targets that live until the Core
 * that registered them stops (its run id is their owner), kept by registering the name again from the form.
 */
export const SESSION_PROVIDER = 'session';
