// What one local target's sandbox allows, as plain data (pure): the writable roots, the masked paths, the network.
// The bubblewrap argv (bwrapArgs.ts) and the Seatbelt profile (seatbelt.ts) are both built from it, so they agree.
import { posix } from 'node:path';
import type { SandboxSetting } from '../../../shared/specFields.js';

/**
 * Package caches a build writes to (npm ci, pip install, cargo build …), relative to the home; bound writable when they
 * exist.
 */
export const PACKAGE_CACHES = [
  '.npm',
  '.cache',
  '.cargo/registry',
  '.cargo/git',
  '.rustup',
  '.yarn',
  '.pnpm-store',
  '.local/share/pnpm',
  'go/pkg/mod',
  '.m2',
  '.gradle',
] as const;

/** Of the caches, the ones created when missing (so `npm ci` and `pip install` work in a home that is not writable). */
export const CREATED_CACHES = ['.npm', '.cache'] as const;

/** The person's credential folders, relative to the home: masked by an empty read-only tmpfs. */
export const CREDENTIAL_DIRS = ['.ssh', '.aws', '.gnupg', '.config/gh', '.kube', '.config/gcloud', '.azure'] as const;

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
  '.npmrc',
  '.pypirc',
  '.docker/config.json',
  '.claude.json',
  '.codex/config.toml',
  '.cursor/mcp.json',
] as const;

/**
 * What stays readable inside a masked credential folder (`~/.ssh/known_hosts`: ssh and git need it, it holds no key).
 */
export const KEPT_IN_MASKED: Readonly<Record<string, readonly string[]>> = { '.ssh': ['known_hosts'] };

/** The person's shell start-up and autostart files: read-only even inside a writable workspace (no persistence). */
export const PERSISTENCE_PATHS = [
  '.bashrc',
  '.profile',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.bash_aliases',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.zlogin',
  '.config/autostart',
  '.config/systemd',
] as const;

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
  /** The runtime identity's own folder (outside the mask: bound back in): its private /tmp and exports file. */
  identityDir: string;
  exists: (path: string) => boolean;
  isDir: (path: string) => boolean;
}

/** One target's sandbox, resolved to absolute paths. */
export interface SandboxPolicy {
  /**
   * Bound writable, in this order: the workspace, `sandbox.writable`, the package caches; each only while it exists
   * (bwrap cannot bind what is not there, and creating a missing cwd is not the sandbox's to do).
   */
  writable: string[];
  /** `sandbox.writable` entries that do not exist (not bound; the target's probe says so, doctor shows it). */
  missingWritable: string[];
  /** The identity's private tmp (host path), seen at /tmp. */
  tmp: string;
  /** The identity's folder, writable, under the masked profile. */
  identityDir: string;
  /** The profile: an empty read-only folder inside. */
  profile: string;
  /**
   * Writable roots strictly inside the profile (a target whose cwd a person put there): bound again over the mask,
   * which keeps the rest of the profile (core.json, config, approvals) hidden.
   */
  insideProfile: string[];
  /** Folders masked by an empty read-only tmpfs, with what stays readable in each. */
  maskedDirs: Array<{ path: string; keep: string[] }>;
  /** Files masked by /dev/null. */
  maskedFiles: string[];
  /** Paths inside a writable root that stay read-only. */
  readOnly: string[];
  network: boolean;
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

/** The sandbox of one target: a pure function of its setting and what exists. */
export function sandboxPolicy(input: PolicyInput): SandboxPolicy {
  const { home, exists } = input;
  const setting = input.setting === 'off' ? undefined : input.setting;
  const inHome = (rel: string): string => posix.join(home, rel);
  const listed = (setting?.writable ?? []).map((p) => expandPath(p, home));
  const caches = PACKAGE_CACHES.map(inHome).filter(exists);
  const writable = dedupe([input.workspace, ...listed, ...caches].filter(exists));
  const writableRoot = (p: string): boolean => writable.some((w) => within(p, w));
  return {
    writable,
    missingWritable: listed.filter((p) => !exists(p)),
    tmp: posix.join(input.identityDir, 'tmp'),
    identityDir: input.identityDir,
    profile: input.profile,
    insideProfile: writable.filter((w) => w !== input.profile && within(w, input.profile)),
    maskedDirs: [...CREDENTIAL_DIRS.map(inHome), ...BROWSER_PROFILE_DIRS.map(inHome), ...HOST_SOCKETS]
      .filter((p) => exists(p) && input.isDir(p))
      .map((path) => ({
        path,
        keep: (KEPT_IN_MASKED[posix.relative(home, path)] ?? []).map((k) => posix.join(path, k)).filter(exists),
      })),
    maskedFiles: [...CREDENTIAL_FILES.map(inHome), ...HOST_SOCKETS].filter((p) => exists(p) && !input.isDir(p)),
    readOnly: PERSISTENCE_PATHS.map(inHome).filter((p) => exists(p) && writableRoot(p)),
    network: setting?.network ?? true,
  };
}

function dedupe(paths: string[]): string[] {
  return [...new Set(paths)];
}
