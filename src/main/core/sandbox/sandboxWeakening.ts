// Whether a new sandbox setting lets agent work do more than the one it replaces: one phrase per weakening (pure, but
// for the host's paths, which come in as a PathView). Registering a weaker sandbox is a person's act (cli/commands).
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix } from 'node:path';
import { SandboxSetting } from '../../../shared/specFields.js';

/** How paths are read: the home `~` stands for, and a path as it really is (symbolic links followed). */
export interface PathView {
  home: string;
  real(path: string): string;
}

/** The longest existing part of `path` with its links followed, and the rest as written. */
function realOrAsWritten(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Not there (yet): its parent decides where it would be.
    const parent = posix.dirname(path);
    return parent === path ? path : posix.join(realOrAsWritten(parent), posix.basename(path));
  }
}

/** This machine's paths. */
export function hostPaths(): PathView {
  return { home: homedir(), real: realOrAsWritten };
}

/**
 * A path as the sandbox binds it: `~` expanded, relative to the home, normalised, links followed. Links matter: a link
 * an agent made inside a folder it may write (`~/data/etc -> /etc`) is no path inside that folder.
 */
function resolved(path: string, paths: PathView): { expanded: string; real: string } {
  const expanded = posix.resolve(paths.home, path === '~' ? '.' : path.startsWith('~/') ? path.slice(2) : path);
  return { expanded, real: paths.real(expanded) };
}

/** Whether `path` is `root` or inside it. */
function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** Whether host rule `rule` (a name, `*.name`, an address) already lets agent work reach what `host` names. */
function hostCovered(host: string, rule: string): boolean {
  const h = host.toLowerCase();
  const r = rule.toLowerCase();
  // `*.example.com` covers its subdomains (and a narrower wildcard), not example.com itself.
  return h === r || (r.startsWith('*.') && h.endsWith(r.slice(1)));
}

/**
 * Each way `after` lets agent work do more than `before` (undefined: the default sandbox — network on to any public
 * host, nothing writable beyond the workspace, no local ports, no extra deny rows); empty when `after` is as strong
 * or stronger. `max_processes` and `max_memory_mb` are not weighed: a looser limit lets work use more of this
 * machine, not reach anything it could not reach before.
 */
export function sandboxWeakening(
  before: SandboxSetting | undefined,
  after: SandboxSetting | undefined,
  paths: PathView = hostPaths(),
): string[] {
  if (before === 'off') return [];
  if (after === 'off') return ['sandbox: off weakens the sandbox (agent work would run with your powers)'];
  const b = before ?? {};
  const a = after ?? {};
  const out: string[] = [];
  const allowed = (b.writable ?? []).map((p) => resolved(p, paths).real);
  for (const p of a.writable ?? []) {
    const { expanded, real } = resolved(p, paths);
    if (!allowed.some((root) => within(real, root)))
      out.push(
        `writable ${p} weakens the sandbox (agent work could write ${real === expanded ? 'there' : `in ${real}`})`,
      );
  }
  const netBefore = b.network ?? true;
  const netAfter = a.network ?? true;
  if (netAfter && !netBefore) {
    const reach = a.allow_hosts ? a.allow_hosts.join(', ') : 'any public host';
    out.push(`network on weakens the sandbox (agent work could reach ${reach})`);
  }
  // Hosts are the proxy's: without a network before there was none to widen (said above), without one now none is.
  if (netAfter && netBefore) {
    if (b.allow_hosts && !a.allow_hosts)
      out.push('no allow_hosts weakens the sandbox (agent work could reach any public host)');
    else if (b.allow_hosts && a.allow_hosts)
      for (const h of a.allow_hosts)
        if (!b.allow_hosts.some((rule) => hostCovered(h, rule)))
          out.push(`allow_hosts ${h} weakens the sandbox (agent work could reach it)`);
  }
  // Local ports are weighed whatever the network: whether a port is reached without one is the sandbox's to decide.
  for (const port of a.allow_local_ports ?? [])
    if (!(b.allow_local_ports ?? []).includes(port))
      out.push(`allow_local_ports ${port} weakens the sandbox (agent work could reach this machine's port ${port})`);
  const denied = (a.deny_write ?? []).map((p) => resolved(p, paths).real);
  for (const p of b.deny_write ?? [])
    if (!denied.some((root) => within(resolved(p, paths).real, root)))
      out.push(`dropping deny_write ${p} weakens the sandbox (agent work could write there)`);
  return out;
}

/**
 * The weakenings of a target's spec: each key of its backend that holds a sandbox setting (`sandboxKeys`), compared
 * with the spec it replaces, or with the default for a new target or one of another backend.
 */
/** Folders whose whole tree is the system's: a workspace in one may write what the machine runs from. */
const SYSTEM_TREES = [
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/sys',
  '/usr',
  '/var/lib',
  '/var/spool',
  '/var/log',
  '/var/cache',
  '/var/mail',
  '/System',
  '/Library',
  '/Applications',
  '/private/etc',
  '/private/var',
];
/** Folders that hold everyone's things: a workspace that is one of them (not a folder in it) reaches them all. */
const SHARED_ROOTS = ['/', '/var', '/home', '/Users', '/opt', '/srv', '/tmp', '/mnt', '/media', '/private'];

/**
 * Whether a target's workspace (its cwd, written to by its sandbox) reaches the system's folders, a folder that holds
 * everyone's things, or another user's home: a sandbox there may write what others or the machine run. A project
 * folder anywhere else (under the home, /srv/app, /opt/tool, /var/www/site …) is what a controller registers daily.
 */
function workspaceWeakening(cwd: unknown, paths: PathView): string[] {
  if (typeof cwd !== 'string' || !cwd) return [];
  const { expanded, real } = resolved(cwd, paths);
  if (within(real, paths.home)) return [];
  const tree = SYSTEM_TREES.find((r) => within(real, r));
  const shared = SHARED_ROOTS.find((r) => real === r);
  const otherHome = /^\/(home|Users)\/[^/]+/.exec(real)?.[0];
  const reached = shared === '/' ? 'the whole file system' : (tree ?? shared ?? otherHome);
  return reached ? [`cwd ${expanded} makes ${reached} writable to agent work`] : [];
}

/**
 * What a registration of `spec` weakens, against the spec it replaces (`replaced`; of another backend or none: the
 * default): each sandbox field (`sandboxKeys`, the backend's declared `sandbox` fields) by sandboxWeakening, and the
 * workspace of a sandboxed target, which its sandbox lets agent work write.
 */
export function specWeakening(
  replaced: Readonly<Record<string, unknown>> | undefined,
  spec: Readonly<Record<string, unknown>>,
  sandboxKeys: readonly string[],
  paths: PathView = hostPaths(),
): string[] {
  const before = replaced?.backend === spec.backend ? replaced : undefined;
  // A value that does not parse counts as the default: the registry refuses such a spec, or kept the last good one.
  const setting = (v: unknown): SandboxSetting | undefined => SandboxSetting.safeParse(v).data;
  const sandboxed = sandboxKeys.some((key) => setting(spec[key]) !== 'off');
  const cwdBefore = before ? workspaceWeakening(before.cwd, paths) : [];
  const cwd = sandboxed && sandboxKeys.length > 0 ? workspaceWeakening(spec.cwd, paths) : [];
  return [
    ...sandboxKeys.flatMap((key) => sandboxWeakening(setting(before?.[key]), setting(spec[key]), paths)),
    // A workspace that was as wide before weakens nothing.
    ...cwd.filter((w) => !cwdBefore.some((b) => b.split(' makes ')[1] === w.split(' makes ')[1])),
  ];
}

/** The most of a confirmation's summary kept: a spec may list many paths, Activity and the audit log show one line. */
const SUMMARY_CHARS = 1000;

/**
 * What Activity and audit.jsonl say of a weakening a person confirmed: which target, who registers it (the provider and
 * owner the registry records), and what weakens.
 */
export function weakeningSummary(w: {
  name: string;
  weakenings: readonly string[];
  provider: string;
  owner_id?: string | undefined;
}): string {
  const owner = w.owner_id ? `, owner ${w.owner_id}` : '';
  const text =
    `a person at a terminal confirmed registering ${w.name} (provider ${w.provider}${owner}) ` +
    `into a weaker sandbox: ${w.weakenings.join('; ')}`;
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
}
