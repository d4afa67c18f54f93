// What a target is: per-backend specs with fixed keys, and what the UI and CLI see of a target.
import { z } from 'zod';

/** A target name: what config keys, CLI arguments and `execution_target` use. */
export const TargetName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a target name is 1-64 of A-Z a-z 0-9 . _ - and starts with a letter or digit');

const common = {
  cwd: z.string().min(1).optional(),
  timeout: z.number().int().positive().max(86_400).optional(),
};

export const LocalSpec = z.strictObject({ backend: z.literal('local'), ...common });

export const SshSpec = z.strictObject({
  backend: z.literal('ssh'),
  ssh_host: z.string().min(1),
  ssh_port: z.number().int().min(1).max(65_535).optional(),
  ssh_user: z.string().min(1).optional(),
  /** Path to a private key file; never the key itself. */
  ssh_key: z.string().min(1).optional(),
  /** Name of an environment variable that holds the password; never the password. */
  ssh_password_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  ssh_agent: z.boolean().optional(),
  /** Another SSH target's name to hop through (ProxyJump). */
  ssh_jump: z.string().min(1).optional(),
  ...common,
});

export const DockerSpec = z
  .strictObject({
    backend: z.literal('docker'),
    docker_image: z.string().min(1).optional(),
    docker_container: z.string().min(1).optional(),
    docker_host: z.string().min(1).optional(),
    docker_cpus: z.number().positive().optional(),
    docker_memory: z.string().regex(/^\d+[kmgKMG]?$/, 'docker_memory is a size such as 512m or 2g').optional(),
    docker_pids_limit: z.number().int().positive().optional(),
    docker_network: z.string().min(1).optional(),
    docker_volumes: z.array(z.string().min(1)).optional(),
    docker_env: z.record(z.string(), z.string()).optional(),
    docker_keep: z.boolean().optional(),
    docker_shell: z.string().min(1).optional(),
    ...common,
  })
  .refine((s) => (s.docker_image === undefined) !== (s.docker_container === undefined), {
    message: 'a docker target needs exactly one of docker_image or docker_container',
  });

/** A spec of a plugin backend: checked by the plugin's own schema at resolve time. */
export const PluginSpec = z.looseObject({ backend: z.string().min(1), ...common });

export const builtinBackends = ['local', 'ssh', 'docker'] as const;
export type BuiltinBackend = (typeof builtinBackends)[number];

export const builtinSpecSchemas = { local: LocalSpec, ssh: SshSpec, docker: DockerSpec } as const;

export type LocalSpec = z.infer<typeof LocalSpec>;
export type SshSpec = z.infer<typeof SshSpec>;
export type DockerSpec = z.infer<typeof DockerSpec>;
export type TargetSpec = LocalSpec | SshSpec | DockerSpec | z.infer<typeof PluginSpec>;

export const TargetSource = z.enum(['config', 'runtime']);
export type TargetSource = z.infer<typeof TargetSource>;

export const TargetState = z.enum(['active', 'draining', 'unreachable', 'removed']);
export type TargetState = z.infer<typeof TargetState>;

/** Classification a provider declares; policy reads these, never the backend name. */
export const ProviderFlags = z.object({
  is_remote: z.boolean(),
  is_container: z.boolean(),
  skip_container_guards: z.boolean(),
  supports_pty: z.boolean(),
  supports_stdin: z.boolean(),
  strip_env_keys: z.array(z.string()),
});
export type ProviderFlags = z.infer<typeof ProviderFlags>;

/** What the UI, CLI and agents see of one target. Never holds a secret. */
export const TargetInfo = z.object({
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
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
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

/** Spec keys that may hold or point at secrets; shown to nobody. */
const secretSpecKeys = new Set(['ssh_password', 'ssh_password_env', 'docker_env', 'password', 'token']);

/** The routing fields of a spec, for display and --json. */
export function publicSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec)) {
    if (secretSpecKeys.has(k)) continue;
    out[k] = v;
  }
  return out;
}
