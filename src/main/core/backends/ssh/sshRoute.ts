// Turns an SSH target's spec (plus ~/.ssh/config and its ssh_jump chain) into the hops a connection takes.
import type { TargetSpec } from '../../../../shared/targets.js';
import { SshSpec } from './fields.js';
import { SwitchboardError } from '../../../../shared/errors.js';
import { parseJumpHop, resolveSshConfig, type SshConfigFile } from './sshConfig.js';

/** One SSH server on the way, fully resolved. */
export interface SshHop {
  /** The target name this hop comes from (for prompts and messages). */
  target: string;
  host: string;
  port: number;
  user: string;
  /** Key files to try, in order; `explicitKey` says the first came from ssh_key (so it must work). */
  keyFiles: string[];
  explicitKey: boolean;
  /** Environment variable NAME holding the password. */
  passwordEnv: string | undefined;
  /** true: use SSH_AUTH_SOCK; undefined: use it when set (as ssh does); false: never. */
  agent: boolean | undefined;
}

export interface RouteDeps {
  resolveSpec(name: string): TargetSpec | undefined;
  sshConfig: SshConfigFile;
  local: { home: string; user: string };
}

/** ProxyJump chains deeper than this are a loop or a mistake. */
export const maxJumpDepth = 8;

/** The keys ssh tries when nothing names one. */
export function defaultKeyFiles(home: string): string[] {
  return ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((f) => `${home}/.ssh/${f}`);
}

/** Resolve one spec to a hop: the spec's own fields win over ~/.ssh/config, which wins over defaults. */
export function resolveHop(target: string, spec: SshSpec, deps: RouteDeps): SshHop {
  const cfg = resolveSshConfig(deps.sshConfig, spec.ssh_host, deps.local);
  const explicitKey = spec.ssh_key !== undefined;
  const keyFiles = explicitKey
    ? [expandHome(spec.ssh_key as string, deps.local.home)]
    : cfg.identityFiles.length > 0
      ? cfg.identityFiles
      : defaultKeyFiles(deps.local.home);
  return {
    target,
    host: cfg.hostName ?? spec.ssh_host,
    port: spec.ssh_port ?? cfg.port ?? 22,
    user: spec.ssh_user ?? cfg.user ?? deps.local.user,
    keyFiles,
    explicitKey,
    passwordEnv: spec.ssh_password_env,
    agent: spec.ssh_agent,
  };
}

/**
 * The hops a `ProxyJump` in ~/.ssh/config names for this host, each resolved through the config too (its HostName,
 * User, Port, IdentityFile). Only when the spec has no ssh_jump: a target's own field wins, as ssh's -J does.
 */
function configJumps(target: string, spec: SshSpec, deps: RouteDeps): SshHop[] {
  const jumps = resolveSshConfig(deps.sshConfig, spec.ssh_host, deps.local).proxyJump ?? [];
  if (jumps.length > maxJumpDepth) {
    throw new SwitchboardError(
      'bad_config',
      `the ProxyJump of ${spec.ssh_host} in ~/.ssh/config has more than ${maxJumpDepth} hops`,
      'shorten the chain',
    );
  }
  return jumps.map((text) => {
    const hop = parseJumpHop(text);
    if (!hop)
      throw new SwitchboardError(
        'bad_config',
        `ProxyJump "${text}" for ${spec.ssh_host} in ~/.ssh/config is not [user@]host[:port]`,
        'fix the ProxyJump line',
      );
    const jumpSpec: SshSpec = {
      backend: 'ssh',
      ssh_host: hop.host,
      ...(hop.user ? { ssh_user: hop.user } : {}),
      ...(hop.port ? { ssh_port: hop.port } : {}),
    };
    return resolveHop(`${target} (jump ${hop.host})`, jumpSpec, deps);
  });
}

/** All hops from the first jump host to the target itself (the target last). */
export function resolveRoute(target: string, spec: SshSpec, deps: RouteDeps): SshHop[] {
  const hops: SshHop[] = [resolveHop(target, spec, deps)];
  if (spec.ssh_jump === undefined) return [...configJumps(target, spec, deps), ...hops];
  const seen = new Set([target]);
  let current = spec;
  let currentName = target;
  while (current.ssh_jump !== undefined) {
    const jumpName = current.ssh_jump;
    if (seen.has(jumpName)) {
      throw new SwitchboardError(
        'bad_config',
        `ssh_jump of target "${currentName}" loops back to "${jumpName}"`,
        'make the jump chain end at a host reached directly',
      );
    }
    if (hops.length > maxJumpDepth) {
      throw new SwitchboardError(
        'bad_config',
        `the ssh_jump chain of target "${target}" is longer than ${maxJumpDepth} hops`,
        'shorten the chain',
      );
    }
    const raw = deps.resolveSpec(jumpName);
    if (raw === undefined) {
      throw new SwitchboardError(
        'bad_config',
        `ssh_jump of target "${currentName}" names "${jumpName}", which is not a target`,
        'add the jump host as an SSH target or fix the name',
      );
    }
    const parsed = SshSpec.safeParse(raw);
    if (!parsed.success) {
      throw new SwitchboardError(
        'bad_config',
        `ssh_jump of target "${currentName}" names "${jumpName}", which is not an SSH target`,
        'a jump host must be a target with backend: ssh',
      );
    }
    seen.add(jumpName);
    hops.unshift(resolveHop(jumpName, parsed.data, deps));
    current = parsed.data;
    currentName = jumpName;
  }
  return hops;
}

/** `user@host:port` for messages and keys. */
export function hopLabel(hop: Pick<SshHop, 'user' | 'host' | 'port'>): string {
  return `${hop.user}@${hop.host}:${hop.port}`;
}

/** The route as people read it: `user@host:port`, jump hops first. */
export function routeKey(hops: readonly SshHop[]): string {
  return hops.map(hopLabel).join(' -> ');
}

/**
 * Everything that decides how one hop logs in, as a string: two environments share a connection only when
 * these agree, so a target re-registered with a corrected key, or another target with a different key for the
 * same user, never rides on a connection made with someone else's credentials. `keyFileIds` names each key
 * file's identity on disk (device, inode, size, mtime; `-` when unreadable), so a key replaced in place counts
 * as a different key. The agent socket and the password's variable NAME are part of it; no secret is.
 */
export function hopAuthKey(hop: SshHop, keyFileIds: readonly string[], agentSocket: string | undefined): string {
  const agent = hop.agent === false ? 'no-agent' : `agent=${agentSocket ?? '-'}${hop.agent === true ? '!' : ''}`;
  const keys = hop.keyFiles.map((f, i) => `${f}@${keyFileIds[i] ?? '-'}`).join(',');
  return [hopLabel(hop), `keys${hop.explicitKey ? '!' : ''}=${keys}`, agent, `pw=${hop.passwordEnv ?? '-'}`].join(' ');
}

export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  return path.startsWith('~/') ? home + path.slice(1) : path;
}
