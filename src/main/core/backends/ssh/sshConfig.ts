// A small ~/.ssh/config reader: Host blocks with HostName, User, Port, IdentityFile (what SSH targets honour).

/** One `Host` block: its patterns and the keywords under it (lower-cased, in file order). */
export interface SshConfigBlock {
  patterns: string[];
  options: Array<{ key: string; value: string }>;
}

/** What an alias resolves to; absent fields were not set. */
export interface SshConfigEntry {
  hostName?: string;
  user?: string;
  port?: number;
  identityFiles: string[];
}

/** Split a config line into keyword and argument (`Key value`, `Key=value`, quoted values). */
export function splitConfigLine(line: string): { key: string; value: string } | undefined {
  const trimmed = line.trim();
  if (!trimmed || trimmed.startsWith('#')) return undefined;
  const m = /^([A-Za-z][A-Za-z0-9]*)(?:\s*=\s*|\s+)(.*)$/.exec(trimmed);
  if (!m || m[1] === undefined || m[2] === undefined) return undefined;
  let value = m[2].trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  return { key: m[1].toLowerCase(), value };
}

/**
 * Parse the text of an ssh_config file into Host blocks. Lines before the first Host apply to every
 * host (pattern `*`). `Match` blocks are skipped: their conditions need state this reader does not have.
 */
export function parseSshConfig(text: string): SshConfigBlock[] {
  const blocks: SshConfigBlock[] = [{ patterns: ['*'], options: [] }];
  let current: SshConfigBlock | undefined = blocks[0];
  for (const line of text.split(/\r?\n/)) {
    const kv = splitConfigLine(line);
    if (!kv) continue;
    if (kv.key === 'host') {
      current = { patterns: kv.value.split(/\s+/).filter(Boolean), options: [] };
      blocks.push(current);
    } else if (kv.key === 'match') {
      current = undefined;
    } else if (current) {
      current.options.push(kv);
    }
  }
  return blocks;
}

/** OpenSSH's pattern match: `*` and `?` wildcards, case-insensitive. */
export function globMatch(pattern: string, value: string): boolean {
  const re = '^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$';
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

/**
 * Resolve a host alias the way ssh does: the first value obtained for each keyword wins;
 * IdentityFile accumulates. `%h`, `%p`, `%r`, `%u`, `%d` and `~` in IdentityFile are expanded.
 */
export function resolveSshConfig(
  blocks: readonly SshConfigBlock[],
  alias: string,
  local: { home: string; user: string },
): SshConfigEntry {
  const out: SshConfigEntry = { identityFiles: [] };
  for (const block of blocks) {
    if (!patternListMatches(block.patterns, alias)) continue;
    for (const { key, value } of block.options) {
      if (key === 'hostname' && out.hostName === undefined) out.hostName = value;
      else if (key === 'user' && out.user === undefined) out.user = value;
      else if (key === 'port' && out.port === undefined) {
        const port = Number(value);
        if (Number.isInteger(port) && port > 0 && port < 65_536) out.port = port;
      } else if (key === 'identityfile' && value.toLowerCase() !== 'none') out.identityFiles.push(value);
    }
  }
  // %h in HostName itself stands for the alias (e.g. `HostName %h.example.com`).
  if (out.hostName !== undefined) out.hostName = out.hostName.replace(/%h/g, alias);
  const host = out.hostName ?? alias;
  out.identityFiles = out.identityFiles.map((f) => expandPath(f, { ...local, host, port: out.port ?? 22, remoteUser: out.user ?? local.user }));
  return out;
}

/** Expand `~` and the ssh_config tokens a path may carry. */
export function expandPath(path: string, t: { home: string; user: string; host: string; port: number; remoteUser: string }): string {
  const tokens: Record<string, string> = { '%': '%', d: t.home, u: t.user, h: t.host, p: String(t.port), r: t.remoteUser };
  const expanded = path.replace(/%([%duhpr])/g, (_m, c: string) => tokens[c] ?? '');
  if (expanded === '~') return t.home;
  if (expanded.startsWith('~/')) return t.home + expanded.slice(1);
  return expanded;
}
