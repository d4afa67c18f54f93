// What one target's sandbox allows, as plain data (pure): the writable roots, what stays read-only inside them (the
// deny-write table, whether or not a path exists), the masked paths, the pins that keep a protected path from being
// moved away, the build caches and the network. The bubblewrap argv (bwrapArgs.ts) and the Seatbelt profile
// (seatbelt.ts) are both built from it, so they agree.
import { posix } from 'node:path';
import type { SandboxSetting } from '../../../shared/specFields.js';
import { DENY_TABLE, type DenyRow } from './denyTable.js';

/** The person's credential folders, relative to the home: masked by an empty read-only tmpfs (no reads either). */
export const CREDENTIAL_DIRS = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gh',
  '.kube',
  '.config/gcloud',
  '.azure',
  // Other tools' logins and keys, as they keep them.
  '.config/glab-cli',
  '.config/hub',
  '.config/rclone',
  '.config/doctl',
  '.config/hcloud',
  '.config/op',
  '.config/github-copilot',
  '.fly',
  '.oci',
  '.wrangler',
  '.config/.wrangler',
  '.local/share/com.vercel.cli',
  '.local/share/keyrings',
  '.password-store',
  '.minikube',
] as const;

/**
 * Web browsers' profile folders, relative to the home: masked like the credential folders. Their history, sessions
 * and cookies hold what a person opened (the Switchboard page's one-time link, its person cookie, other sites'
 * sessions), none of it an agent's to read. Linux (native, snap, flatpak) and macOS (Seatbelt reads the same list).
 */
export const BROWSER_PROFILE_DIRS = [
  '.config/chromium',
  '.config/google-chrome',
  '.config/google-chrome-beta',
  '.config/google-chrome-unstable',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  '.mozilla',
  '.librewolf',
  '.waterfox',
  'snap/firefox',
  'snap/chromium',
  '.var/app/org.mozilla.firefox',
  '.var/app/com.google.Chrome',
  '.var/app/org.chromium.Chromium',
  '.var/app/com.brave.Browser',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Chromium',
  'Library/Application Support/BraveSoftware',
  'Library/Application Support/Firefox',
  'Library/Safari',
  'Library/Cookies',
] as const;

/**
 * Credential files, relative to the home: masked by /dev/null. `.npmrc` and `.pypirc` hold registry tokens (a build
 * that needs a private registry's token runs on a `sandbox: off` target). The last three are MCP clients' configs,
 * which can hold a Switchboard bearer token.
 */
export const CREDENTIAL_FILES = [
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.docker/config.json',
  '.config/containers/auth.json',
  '.claude.json',
  '.codex/config.toml',
  '.codex/auth.json',
  '.cursor/mcp.json',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.gem/credentials',
  '.terraform.d/credentials.tfrc.json',
  '.boto',
  '.s3cfg',
  '.Xauthority',
  '.docker/key.pem',
] as const;

/**
 * The machine's own secrets, readable to root (the owner), so to a root person's agent work too: shadow passwords,
 * TLS and SSH host private keys, saved network passwords. Masked; SSH host keys are listed by name where they exist.
 */
export const SYSTEM_SECRETS = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssl/private',
  '/etc/letsencrypt',
  '/etc/NetworkManager/system-connections',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
  '/etc/ssh/ssh_host_dsa_key',
] as const;

/**
 * What stays readable inside a masked credential folder (`~/.ssh/known_hosts`: ssh and git need it, it holds no key).
 */
export const KEPT_IN_MASKED: Readonly<Record<string, readonly string[]>> = { '.ssh': ['known_hosts'] };

/** Host sockets that hand out root or the person's session (a container engine, the user's D-Bus): masked. */
export const HOST_SOCKETS = ['/run/docker.sock', '/run/containerd', '/run/podman', '/run/user'] as const;

/** Everything a policy is built from; `exists` and `isDir` ask the file system (a table test passes its own). */
export interface PolicyInput {
  setting: SandboxSetting | undefined;
  /** The person's home. */
  home: string;
  /** SWITCHBOARD_HOME: masked whole. */
  profile: string;
  /** The target's workspace: its cwd, absolute. */
  workspace: string;
  /** The runtime identity's private tmp (host path, the Core's, under the masked profile): seen at /tmp. */
  tmp: string;
  /** The target's own build caches (host path, the Core's, under the masked profile): bound writable at that path. */
  caches?: string;
  /** The folders on the person's PATH: those inside a writable root stay read-only. */
  pathDirs?: readonly string[];
  /** The work trees of the repositories under the writable roots (repositories.ts): their deny rows apply. */
  repositories?: readonly string[];
  /**
   * Submodules' git folders (`.git/modules/…`): git runs their config and hooks too (`git status` walks into each
   * submodule), so their `config` and `hooks` are held as a repository's are.
   */
  gitDirs?: readonly string[];
  exists: (path: string) => boolean;
  isDir: (path: string) => boolean;
  /** Whether a program is installed (a row naming `tools` gets a placeholder only then); absent: every one is. */
  hasTool?: (program: string) => boolean;
}

/** A protected path that did not exist: created empty (or with `content`) and bound read-only over itself. */
export interface Placeholder {
  path: string;
  kind: 'file' | 'dir';
  content: string;
}

/** One target's sandbox, resolved to absolute paths. */
export interface SandboxPolicy {
  /**
   * Bound writable, in this order: the workspace, then `sandbox.writable`; each only while it exists (bwrap cannot
   * bind what is not there, and creating a missing cwd is not the sandbox's to do).
   */
  writable: string[];
  /** `sandbox.writable` entries that do not exist (not bound; the target's probe says so, doctor shows it). */
  missingWritable: string[];
  /** The identity's private tmp (host path), seen at /tmp. */
  tmp: string;
  /** The target's build caches (host path), writable; what tools are told through `env`. */
  caches: string | undefined;
  /** The profile: an empty read-only folder inside. */
  profile: string;
  /**
   * Writable roots strictly inside the profile (a target whose cwd a person put there): bound again over the mask,
   * which keeps the rest of the profile (core.json, config, approvals) hidden.
   */
  insideProfile: string[];
  /**
   * Folders inside a writable root, each bound over itself so that nothing inside can rename it: every folder between
   * a writable root and a path the sandbox protects (a mount moves with the folder it is in; a mount point itself
   * cannot be renamed).
   */
  pins: string[];
  /** Folders masked by an empty read-only tmpfs, with what stays readable in each. */
  maskedDirs: Array<{ path: string; keep: string[] }>;
  /** Files masked by /dev/null. */
  maskedFiles: string[];
  /** Existing paths inside a writable root that stay read-only: the deny-write table, PATH folders, deny_write. */
  readOnly: string[];
  /** Missing paths of the deny-write table inside a writable root: created, then bound read-only (bubblewrap). */
  placeholders: Placeholder[];
  /** The same missing paths, each as itself (Seatbelt denies a path that does not exist; nothing is created). */
  missingDenied: string[];
  network: boolean;
  /** Variables that point builds at the target's caches instead of the person's. */
  env: Record<string, string>;
}

/** `~` and `~/x` against the home; anything else made absolute against it. */
export function expandPath(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return posix.join(home, path.slice(2));
  return posix.resolve(home, path);
}

/** Whether `path` is `root` or inside it. */
export function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/**
 * Where each build tool keeps what it downloads and builds, under the target's cache folder: the person's own caches
 * and toolchains stay read-only, so nothing a build fetched or compiled there can run later in the person's tools.
 */
export function cacheEnvironment(caches: string): Record<string, string> {
  const at = (sub: string): string => posix.join(caches, sub);
  return {
    XDG_CACHE_HOME: at('xdg'),
    npm_config_cache: at('npm'),
    npm_config_store_dir: at('pnpm-store'),
    YARN_CACHE_FOLDER: at('yarn'),
    PIP_CACHE_DIR: at('pip'),
    CARGO_HOME: at('cargo'),
    GOPATH: at('go'),
    GOMODCACHE: at('go/pkg/mod'),
    GRADLE_USER_HOME: at('gradle'),
    MAVEN_OPTS: `-Dmaven.repo.local=${at('m2/repository')}`,
    BUN_INSTALL_CACHE_DIR: at('bun'),
    DENO_DIR: at('deno'),
  };
}

/** The placeholder of a missing protected path: the path itself, or its first missing folder (created empty). */
function placeholderOf(path: string, kind: Placeholder['kind'], content: string, input: PolicyInput): Placeholder {
  let at = path;
  while (!input.exists(posix.dirname(at)) && posix.dirname(at) !== at) at = posix.dirname(at);
  return at === path ? { path, kind, content } : { path: at, kind: 'dir', content: '' };
}

/** The sandbox of one target: a pure function of its setting and what exists. */
/**
 * What a sandbox's mounts are, as one string: shells and helpers started with another signature no longer match what
 * a new sandbox would be given (a credential file or a repository made since).
 */
export function mountSignature(p: SandboxPolicy): string {
  return JSON.stringify([
    p.writable,
    p.pins,
    p.insideProfile,
    p.maskedDirs,
    p.maskedFiles,
    [...p.readOnly, ...p.missingDenied].sort(),
  ]);
}

export function sandboxPolicy(input: PolicyInput): SandboxPolicy {
  const { home, exists } = input;
  const setting = input.setting === 'off' ? undefined : input.setting;
  const inHome = (rel: string): string => posix.join(home, rel);
  const listed = (setting?.writable ?? []).map((p) => expandPath(p, home));
  const writable = dedupe([input.workspace, ...listed].filter(exists));
  const inWritable = (p: string): boolean => writable.some((w) => within(p, w));
  const maskedDirs = [
    ...CREDENTIAL_DIRS.map(inHome),
    ...BROWSER_PROFILE_DIRS.map(inHome),
    ...HOST_SOCKETS,
    ...SYSTEM_SECRETS,
  ]
    .filter((p) => exists(p) && input.isDir(p))
    .map((path) => ({
      path,
      keep: (KEPT_IN_MASKED[posix.relative(home, path)] ?? []).map((k) => posix.join(path, k)).filter(exists),
    }));
  const maskedFiles = [...CREDENTIAL_FILES.map(inHome), ...HOST_SOCKETS, ...SYSTEM_SECRETS].filter(
    (p) => exists(p) && !input.isDir(p),
  );
  const masked = [...maskedDirs.map((d) => d.path), ...maskedFiles];
  const isMasked = (p: string): boolean => masked.some((m) => within(p, m));

  // Every protected path inside a writable root, with how to create it where it is missing.
  const rows: Array<{ path: string; kind: DenyRow['kind']; create: boolean; content: string }> = [];
  const installed = (tools: readonly string[] | undefined): boolean =>
    !tools || !input.hasTool || tools.some((t) => input.hasTool!(t));
  const addRow = (row: DenyRow, root: string): void =>
    void rows.push({
      path: posix.join(root, row.path),
      kind: row.kind,
      create: row.create && installed(row.tools),
      content: row.placeholder ?? '',
    });
  for (const row of DENY_TABLE) {
    if (row.scope === 'home') addRow(row, home);
    else for (const repo of input.repositories ?? []) addRow(row, repo);
  }
  for (const gitDir of input.gitDirs ?? []) {
    rows.push({ path: posix.join(gitDir, 'config'), kind: 'file', create: false, content: '' });
    rows.push({ path: posix.join(gitDir, 'hooks'), kind: 'dir', create: true, content: '' });
  }
  for (const dir of input.pathDirs ?? []) if (within(dir, home) && dir !== home) rows.push(folderRow(dir));
  for (const p of setting?.deny_write ?? []) {
    const path = expandPath(p.replace(/\/+$/, ''), home);
    rows.push({ path, kind: p.endsWith('/') ? 'dir' : 'file', create: true, content: '' });
  }
  const readOnly: string[] = [];
  const placeholders: Placeholder[] = [];
  const missingDenied: string[] = [];
  for (const row of rows) {
    if (!inWritable(row.path) || isMasked(row.path)) continue;
    if (exists(row.path)) readOnly.push(row.path);
    else {
      missingDenied.push(row.path);
      if (row.create) placeholders.push(placeholderOf(row.path, row.kind, row.content, input));
    }
  }
  const readOnlyPaths = withoutNested(dedupe(readOnly));
  const created = withoutNested(dedupe(placeholders.map((p) => p.path)))
    .filter((path) => !readOnlyPaths.some((r) => within(path, r)))
    .map((path) => placeholders.find((p) => p.path === path)!);
  const protectedPaths = dedupe([input.profile, ...masked, ...readOnlyPaths, ...created.map((p) => p.path)]);
  return {
    writable,
    missingWritable: listed.filter((p) => !exists(p)),
    tmp: input.tmp,
    caches: input.caches,
    profile: input.profile,
    insideProfile: writable.filter((w) => w !== input.profile && within(w, input.profile)),
    pins: pinsFor(protectedPaths, writable).filter((d) => !protectedPaths.some((p) => within(d, p))),
    maskedDirs,
    maskedFiles,
    readOnly: readOnlyPaths,
    placeholders: created,
    missingDenied: withoutNested(dedupe(missingDenied)),
    network: setting?.network ?? true,
    env: input.caches ? cacheEnvironment(input.caches) : {},
  };
}

/** A PATH folder's row: a program put there runs when the person types its name. */
function folderRow(path: string): { path: string; kind: 'dir'; create: boolean; content: string } {
  return { path, kind: 'dir', create: true, content: '' };
}

/** Every folder strictly between a writable root and a protected path inside it, outermost first. */
function pinsFor(protectedPaths: readonly string[], writable: readonly string[]): string[] {
  const pins = new Set<string>();
  for (const p of protectedPaths) {
    for (const w of writable) {
      if (p === w || !within(p, w)) continue;
      for (let d = posix.dirname(p); d !== w && within(d, w); d = posix.dirname(d)) pins.add(d);
    }
  }
  return [...pins].filter((d) => !writable.includes(d)).sort((a, b) => a.split('/').length - b.split('/').length);
}

/** The paths with none inside another of them (a read-only folder covers what is in it). */
function withoutNested(paths: string[]): string[] {
  return paths.filter((p) => !paths.some((q) => q !== p && within(p, q)));
}

function dedupe(paths: string[]): string[] {
  return [...new Set(paths)];
}
