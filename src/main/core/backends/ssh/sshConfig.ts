// ~/.ssh/config as SSH targets honour it, parsed and matched by the `ssh-config` library (Host and Match blocks,
// first value wins, IdentityFile lists). Kept here: reading `Include`d files (the library parses text, it does not
// read files), the `%` tokens of paths, and the pattern match known_hosts uses.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import SSHConfig from 'ssh-config';

/** A parsed config, ready to be asked about a host. */
export type SshConfigFile = SSHConfig;

/** What an alias resolves to; absent fields were not set. */
export interface SshConfigEntry {
  hostName?: string;
  user?: string;
  port?: number;
  identityFiles: string[];
  /** ProxyJump hops in order (`[user@]host[:port]`), when set and not `none`. */
  proxyJump?: string[];
}

/** Includes nested deeper than this are a loop (OpenSSH stops at 16 as well). */
const maxIncludeDepth = 16;

export function parseSshConfig(text: string): SshConfigFile {
  return SSHConfig.parse(text);
}

/** OpenSSH's pattern match: `*` and `?` wildcards, case-insensitive. */
export function globMatch(pattern: string, value: string): boolean {
  const re =
    '^' +
    pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.') +
    '$';
  return new RegExp(re, 'i').test(value);
}

/** A pattern list matches when some pattern matches and no negated (`!pat`) one does. */
export function patternListMatches(patterns: readonly string[], value: string): boolean {
  let matched = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (globMatch(p.slice(1), value)) return false;
    } else if (globMatch(p, value)) {
      matched = true;
    }
  }
  return matched;
}

/** The files one Include argument names: `~` expanded, relative to ~/.ssh, a glob in the last part matched. */
async function includedFiles(arg: string, home: string): Promise<string[]> {
  const path =
    arg === '~'
      ? home
      : arg.startsWith('~/')
        ? join(home, arg.slice(2))
        : isAbsolute(arg)
          ? arg
          : join(home, '.ssh', arg);
  const base = path.slice(dirname(path).length + 1);
  if (!/[*?]/.test(base)) return [path];
  const names = await readdir(dirname(path)).catch(() => [] as string[]); // no such folder: the glob matches nothing
  return names
    .filter((n) => globMatch(base, n))
    .sort()
    .map((n) => join(dirname(path), n));
}

/**
 * The text of a config file with each `Include` replaced by the files it names, in place (so an Include inside a
 * Host block applies within it, as in OpenSSH). Missing or unreadable files are skipped, as ssh skips them.
 */
export async function expandIncludes(text: string, home: string, depth = 0): Promise<string> {
  if (depth > maxIncludeDepth) return '';
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*include(?:\s*=\s*|\s+)(.+)$/i.exec(line);
    if (!m) {
      out.push(line);
      continue;
    }
    for (const arg of m[1]!.match(/"[^"]*"|\S+/g) ?? []) {
      for (const file of await includedFiles(arg.replace(/^"|"$/g, ''), home)) {
        // An Include that cannot be read adds nothing, as in OpenSSH.
        const body = await readFile(file, 'utf8').catch(() => undefined);
        if (body !== undefined) out.push(await expandIncludes(body, home, depth + 1));
      }
    }
  }
  return out.join('\n');
}

/** ~/.ssh/config with its Includes; an absent file is an empty config. */
export async function loadSshConfig(home: string): Promise<SshConfigFile> {
  const text = await readFile(join(home, '.ssh', 'config'), 'utf8').catch(() => ''); // no ~/.ssh/config: an empty one
  return parseSshConfig(await expandIncludes(text, home));
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Resolve a host alias the way ssh does (the library applies Host and Match blocks, first value wins, IdentityFile
 * accumulates). `Match exec` is not run: a command in a config file is not executed inside the Core.
 * `%h`, `%p`, `%r`, `%u`, `%d` and `~` in IdentityFile are expanded.
 */
export function resolveSshConfig(
  config: SshConfigFile,
  alias: string,
  local: { home: string; user: string },
): SshConfigEntry {
  const c = config.compute(alias, { ignoreCase: true, matchExec: false });
  const out: SshConfigEntry = { identityFiles: [] };
  const hostName = first(c.hostname);
  // %h in HostName itself stands for the alias (e.g. `HostName %h.example.com`).
  if (hostName !== undefined) out.hostName = hostName.replace(/%h/g, alias);
  const user = first(c.user);
  if (user !== undefined) out.user = user;
  const port = Number(first(c.port));
  if (Number.isInteger(port) && port > 0 && port < 65_536) out.port = port;
  const files = c.identityfile === undefined ? [] : Array.isArray(c.identityfile) ? c.identityfile : [c.identityfile];
  const host = out.hostName ?? alias;
  out.identityFiles = files
    .filter((f) => f.toLowerCase() !== 'none')
    .map((f) => expandPath(f, { ...local, host, port: out.port ?? 22, remoteUser: out.user ?? local.user }));
  const jump = first(c.proxyjump);
  if (jump !== undefined && jump.toLowerCase() !== 'none')
    out.proxyJump = jump
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
  return out;
}

/** `[user@]host[:port]` or `ssh://[user@]host[:port]`, one ProxyJump hop. */
export function parseJumpHop(hop: string): { user?: string; host: string; port?: number } | undefined {
  const m = /^(?:ssh:\/\/)?(?:([^@]+)@)?(\[[^\]]+\]|[^:@/\s]+)(?::(\d+))?\/?$/.exec(hop);
  if (!m) return undefined;
  const port = m[3] === undefined ? undefined : Number(m[3]);
  return {
    host: m[2]!.replace(/^\[|\]$/g, ''),
    ...(m[1] !== undefined ? { user: m[1] } : {}),
    ...(port !== undefined && port > 0 && port < 65_536 ? { port } : {}),
  };
}

/** Expand `~` and the ssh_config tokens a path may carry. */
export function expandPath(
  path: string,
  t: { home: string; user: string; host: string; port: number; remoteUser: string },
): string {
  const tokens: Record<string, string> = {
    '%': '%',
    d: t.home,
    u: t.user,
    h: t.host,
    p: String(t.port),
    r: t.remoteUser,
  };
  const expanded = path.replace(/%([%duhpr])/g, (_m, c: string) => tokens[c] ?? '');
  if (expanded === '~') return t.home;
  if (expanded.startsWith('~/')) return t.home + expanded.slice(1);
  return expanded;
}
