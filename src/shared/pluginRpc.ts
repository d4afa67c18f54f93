// The typed RPC between the Core and a plugin host process: each method's params and result, and the host's events.
import * as z from 'zod';
import { SpecFieldInfo } from './specFields.js';

/** Flags as a plugin declared them (each optional; the Core fills the defaults). */
export const DeclaredFlags = z
  .object({
    is_remote: z.boolean(),
    is_container: z.boolean(),
    skip_container_guards: z.boolean(),
    cache_path_base: z.string().min(1).max(512),
    strip_env_keys: z.array(z.string().min(1).max(128)).max(256),
    session_isolated_when_nonpersistent: z.boolean(),
    default_cwd: z.string().regex(/^(~|~\/.*|\/.*)$/, 'default_cwd is absolute or ~'),
    supports_streams: z.boolean(),
    supports_pty: z.boolean(),
  })
  .partial()
  .strict();
export type DeclaredFlags = z.infer<typeof DeclaredFlags>;

/** One backend a loaded plugin registered, as the host reports it (no functions cross). */
export const ProviderDeclaration = z.object({
  name: z.string().min(1).max(64),
  display_name: z.string().min(1).max(128),
  fields: z.array(SpecFieldInfo).max(64),
  exactly_one: z.array(z.array(z.string())).max(16),
  flags: DeclaredFlags,
  /** It has `flags_for(spec)`: a target's flags are asked of it per spec (`flags_for`), `flags` until it answered. */
  flags_for: z.boolean().optional(),
  /** It has `probe(spec)`: the Core's health checks look at a target with it; without, they do not look at all. */
  probe: z.boolean().optional(),
});
export type ProviderDeclaration = z.infer<typeof ProviderDeclaration>;

/** Which optional parts an environment has; where one is missing the Core falls back or says it is unsupported. */
export const EnvCapabilities = z.object({
  home: z.boolean(),
  open_shell: z.boolean(),
  spawn_background: z.boolean(),
  read_file: z.boolean(),
  write_file: z.boolean(),
  stat: z.boolean(),
  probe: z.boolean(),
  cleanup: z.boolean(),
});
export type EnvCapabilities = z.infer<typeof EnvCapabilities>;

const Env = z.record(z.string(), z.string());
const ProbeResult = z.union([
  z.object({ ok: z.literal(true), detail: z.string().optional() }),
  z.object({ ok: z.literal(false), problem: z.string() }),
]);
const Nothing = z.object({});

/** Every method the Core calls on a host: params and result. */
export const hostMethods = {
  /** The heartbeat: answered by the host's own event loop, never the plugin's code (pluginHost.ts sends it). */
  ping: { params: Nothing, result: Nothing },
  /** Import the plugin's module and call `register(ctx)`; answers with what it registered. */
  load: {
    params: z.object({
      name: z.string(),
      version: z.string(),
      dir: z.string(),
      data_dir: z.string(),
      entry: z.string(),
    }),
    result: z.object({ providers: z.array(ProviderDeclaration) }),
  },
  is_available: { params: z.object({ backend: z.string() }), result: z.boolean() },
  check_requirements: {
    params: z.object({ backend: z.string(), spec: z.record(z.string(), z.unknown()) }),
    result: z.array(z.string()),
  },
  /** One target's flags, key by key over the backend's declared ones. */
  flags_for: {
    params: z.object({ backend: z.string(), spec: z.record(z.string(), z.unknown()) }),
    result: DeclaredFlags,
  },
  doctor_checks: {
    params: z.object({ backend: z.string() }),
    result: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string().optional() })),
  },
  create_environment: {
    params: z.object({
      backend: z.string(),
      env_id: z.string(),
      cwd: z.string(),
      timeout: z.number(),
      runtime_identity: z.string(),
      spec: z.record(z.string(), z.unknown()),
      /**
       * The variables the spec's secret_ref fields name, with their values (the host has no credentials of its own).
       */
      secrets: z.record(z.string(), z.string()).optional(),
    }),
    result: EnvCapabilities,
  },
  exec: {
    params: z.object({
      env_id: z.string(),
      command: z.string(),
      cwd: z.string(),
      timeout_ms: z.number(),
      env: Env.optional(),
      stdin: z.string().optional(),
    }),
    result: z.object({ output: z.string(), exit_code: z.number().int(), timed_out: z.boolean().optional() }),
  },
  home: { params: z.object({ env_id: z.string() }), result: z.string() },
  open_shell: {
    params: z.object({
      env_id: z.string(),
      stream_id: z.string(),
      cwd: z.string(),
      cols: z.number(),
      rows: z.number(),
      env: Env.optional(),
    }),
    result: Nothing,
  },
  spawn_background: {
    params: z.object({
      env_id: z.string(),
      stream_id: z.string(),
      command: z.string(),
      cwd: z.string(),
      env: Env.optional(),
    }),
    result: Nothing,
  },
  'stream.write': { params: z.object({ stream_id: z.string(), data: z.string() }), result: Nothing },
  'stream.resize': { params: z.object({ stream_id: z.string(), cols: z.number(), rows: z.number() }), result: Nothing },
  'stream.kill': { params: z.object({ stream_id: z.string() }), result: Nothing },
  'file.read': {
    params: z.object({ env_id: z.string(), path: z.string(), max_bytes: z.number() }),
    result: z.object({ base64: z.string() }),
  },
  'file.write': { params: z.object({ env_id: z.string(), path: z.string(), base64: z.string() }), result: Nothing },
  'file.stat': {
    params: z.object({ env_id: z.string(), path: z.string() }),
    result: z.object({ type: z.enum(['file', 'directory', 'other', 'missing']), size: z.number() }),
  },
  probe: { params: z.object({ env_id: z.string() }), result: ProbeResult },
  /** The backend's own look at one target, with no environment: what the Core's health checks call. */
  probe_target: {
    params: z.object({
      backend: z.string(),
      spec: z.record(z.string(), z.unknown()),
      secrets: z.record(z.string(), z.string()).optional(),
    }),
    result: ProbeResult,
  },
  cleanup: {
    params: z.object({ env_id: z.string(), reason: z.enum(['idle', 'removed', 'shutdown']) }),
    result: Nothing,
  },
} as const;

export type HostMethod = keyof typeof hostMethods;
export type HostParams<M extends HostMethod> = z.infer<(typeof hostMethods)[M]['params']>;
export type HostResult<M extends HostMethod> = z.infer<(typeof hostMethods)[M]['result']>;

/** Core → host. */
export const HostRequest = z.object({ id: z.number().int(), method: z.string(), params: z.unknown() });
export type HostRequest = z.infer<typeof HostRequest>;

/** Host → Core: a reply to a request, or an event (a stream's output or exit, a log line). */
export const HostMessage = z.union([
  z.object({ id: z.number().int(), ok: z.literal(true), result: z.unknown() }),
  z.object({ id: z.number().int(), ok: z.literal(false), error: z.string() }),
  z.object({ event: z.literal('stream.data'), stream_id: z.string(), data: z.string() }),
  z.object({
    event: z.literal('stream.exit'),
    stream_id: z.string(),
    exit_code: z.number().int().nullable(),
    reason: z.string().optional(),
  }),
  z.object({ event: z.literal('log'), message: z.string() }),
]);
export type HostMessage = z.infer<typeof HostMessage>;
