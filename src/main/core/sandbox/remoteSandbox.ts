// The Sandbox on an SSH host: the same policy (sandboxPolicy.ts) and the same bubblewrap command line (bwrapArgs.ts)
// as on this machine, for the remote account, built from what one round trip found there (the facts: its home, its
// bwrap, what exists of the protected paths, its repositories). No Node runs on the host, so what the Core does here
// with descriptors and its own file calls, a short shell prelude does there just before bwrap starts: it makes the
// identity's private /tmp and caches, the stand-ins for missing protected paths, and refuses a writable folder that
// goes through a link. The network is the remote account's own (`network: false` cuts it); there is no proxy there.
import { posix } from 'node:path';
import type { SandboxSetting } from '../../../shared/specFields.js';
import { shellAssignments, shellQuote } from '../platform/index.js';
import { bwrapArgs } from './bwrapArgs.js';
import { DENY_TABLE } from './denyTable.js';
import {
  BROWSER_PROFILE_DIRS,
  CREDENTIAL_DIRS,
  CREDENTIAL_FILES,
  HOST_SOCKETS,
  KEPT_IN_MASKED,
  SYSTEM_SECRETS,
  expandPath,
  sandboxPolicy,
  type SandboxPolicy,
} from './sandboxPolicy.js';
import namespaceProgram from './namespaceProcs.sh';
import probeProgram from './remoteProbe.sh';
import { seccompProgram, type SeccompArch } from './seccomp.js';

/** What one round trip found on the host. */
export interface RemoteFacts {
  home: string;
  arch: SeccompArch | undefined;
  /** bwrap there runs a sandbox, or why not. */
  bwrap: { ok: true } | { ok: false; why: string };
  /** The protected paths (and their folders) that exist, each a folder or not. */
  existing: Map<string, 'd' | 'f'>;
  pathDirs: string[];
  repositories: string[];
  gitDirs: string[];
  tools: Set<string>;
}

/** Where the remote account's Switchboard state is (masked inside, like the profile here). */
const STATE = '.cache/switchboard';

/** The rows a repository brings (deny table, repository scope), as names under its work tree. */
const REPO_ROWS = DENY_TABLE.filter((r) => r.scope === 'repository').map((r) => r.path);

/** Every path the policy may ask about under the home, `~/`-prefixed, with the folders on the way to each. */
function candidates(setting: SandboxSetting | undefined, workspace: string): string[] {
  const s = setting === 'off' ? undefined : setting;
  const rel = [
    ...DENY_TABLE.filter((r) => r.scope === 'home').map((r) => r.path),
    ...CREDENTIAL_DIRS,
    ...CREDENTIAL_FILES,
    ...BROWSER_PROFILE_DIRS,
    ...Object.entries(KEPT_IN_MASKED).flatMap(([dir, keep]) => keep.map((k) => `${dir}/${k}`)),
  ];
  const out = new Set<string>();
  const add = (p: string): void => {
    for (let at = p; at !== '~' && at !== '/' && at !== '.'; at = posix.dirname(at)) out.add(at);
  };
  for (const r of rel) add(`~/${r}`);
  for (const p of [workspace, ...(s?.writable ?? []), ...(s?.deny_write ?? [])]) {
    const path = p === '/' ? p : p.replace(/\/+$/, '');
    out.add(path); // the home itself too (a target without a cwd works there)
    add(path);
  }
  for (const p of [...SYSTEM_SECRETS, ...HOST_SOCKETS]) out.add(p);
  return [...out];
}

/** The tools the deny table's rows name (a stand-in is made only where one is installed). */
const TOOLS = [...new Set(DENY_TABLE.flatMap((r) => r.tools ?? []))];

/**
 * The probe: remoteProbe.sh, one shell program, one round trip, after a line that sets its values. It writes the
 * seccomp programs (base64, per arch) where bwrap will read them, tries bwrap with everything a run needs, and says
 * what exists (remoteProbe.sh lists its lines).
 */
export function probeScript(setting: SandboxSetting | undefined, workspace: string): string {
  const roots = [workspace, ...(setting === 'off' ? [] : (setting?.writable ?? []))];
  const values = {
    __sb_state: STATE,
    __sb_seccomp_x86_64: seccompProgram('x86_64').toString('base64'),
    __sb_seccomp_aarch64: seccompProgram('aarch64').toString('base64'),
    __sb_paths: candidates(setting, workspace).join('\n'),
    __sb_tools: TOOLS.join(' '),
    __sb_rows: REPO_ROWS.join('\n'),
    __sb_roots: roots.join('\n'),
  };
  return `${shellAssignments(values)}\n${probeProgram}`;
}

/** The facts from the probe's output. */
export function parseFacts(output: string): RemoteFacts {
  const facts: RemoteFacts = {
    home: '',
    arch: undefined,
    bwrap: { ok: false, why: 'the host did not answer the sandbox probe' },
    existing: new Map(),
    pathDirs: [],
    repositories: [],
    gitDirs: [],
    tools: new Set(),
  };
  for (const line of output.split('\n')) {
    const [kind, ...rest] = line.split(' ');
    const value = rest.join(' ');
    if (kind === 'home') facts.home = value;
    else if (kind === 'arch') facts.arch = value === 'x86_64' || value === 'aarch64' ? value : undefined;
    else if (kind === 'bwrap')
      facts.bwrap = value === 'ok' ? { ok: true } : { ok: false, why: value.replace(/^no /, '') };
    else if (kind === 'p') facts.pathDirs.push(value);
    else if (kind === 'e' && (rest[0] === 'd' || rest[0] === 'f')) facts.existing.set(rest.slice(1).join(' '), rest[0]);
    else if (kind === 'r') facts.repositories.push(value);
    else if (kind === 'm') facts.gitDirs.push(value);
    else if (kind === 't') facts.tools.add(value);
  }
  facts.repositories = [...new Set(facts.repositories)];
  return facts;
}

/** One SSH runtime identity's sandbox on its host, from its facts (pure but for nothing: no I/O here). */
export class RemoteSandbox {
  constructor(
    private readonly target: { setting: SandboxSetting | undefined; workspace: string; id: string; cachesId: string },
  ) {}

  /** The probe to run (one round trip; the caller caches the facts per connection). */
  probe(): string {
    return probeScript(this.target.setting, this.target.workspace);
  }

  /** The remote paths of the identity's own folders. */
  private places(home: string): { state: string; tmp: string; caches: string } {
    const state = posix.join(home, STATE);
    return {
      state,
      tmp: posix.join(state, 'sandbox', this.target.id, 'tmp'),
      caches: posix.join(state, 'caches', this.target.cachesId),
    };
  }

  /** The policy on the host, from its facts. */
  policy(facts: RemoteFacts): SandboxPolicy {
    const { state, tmp, caches } = this.places(facts.home);
    const made = new Set([state, tmp, caches]);
    return sandboxPolicy({
      setting: this.target.setting,
      home: facts.home,
      profile: state,
      workspace: expandPath(this.target.workspace, facts.home),
      tmp,
      caches,
      pathDirs: facts.pathDirs,
      repositories: facts.repositories,
      gitDirs: facts.gitDirs,
      exists: (p) => made.has(p) || facts.existing.has(p),
      isDir: (p) => made.has(p) || facts.existing.get(p) === 'd',
      hasTool: (t) => facts.tools.has(t),
    });
  }

  /**
   * The shell text that runs `inner` (sh text) inside the sandbox: it makes the identity's folders and the stand-ins,
   * refuses a writable folder that goes through a link, then execs bwrap (so the pid the caller knows is bwrap's).
   */
  wrap(facts: RemoteFacts, inner: string, opts: { cwd: string; newSession: boolean }): string {
    const policy = this.policy(facts);
    const { tmp, caches } = this.places(facts.home);
    const q = shellQuote;
    // Private folders (a call's exports land in its /tmp), made so in a subshell: the umask inside stays the user's.
    const lines = [`(umask 077 && mkdir -p -- ${q(tmp)} ${q(caches)}) || exit 125`];
    for (const p of policy.placeholders)
      lines.push(
        `[ -e ${q(p.path)} ] || ` +
          (p.kind === 'dir' ? `mkdir -- ${q(p.path)}` : `printf %s ${q(p.content)} > ${q(p.path)}`) +
          ` 2>/dev/null || [ -e ${q(p.path)} ] || { echo ${q(`switchboard: the sandbox cannot make ${p.path}`)} >&2; ` +
          'exit 125; }',
      );
    for (const w of [tmp, caches, ...policy.writable, ...policy.pins])
      lines.push(
        `[ "$(cd -P -- ${q(w)} 2>/dev/null && pwd)" = ${q(w)} ] || [ ! -d ${q(w)} ] || ` +
          `{ echo ${q(`switchboard: the sandbox cannot start: ${w} goes through a link`)} >&2; exit 125; }`,
      );
    const args = bwrapArgs(
      policy,
      { argv: ['/bin/sh', '-c', inner], cwd: opts.cwd, newSession: opts.newSession, unshareNet: !policy.network },
      { seccomp: 9 },
    );
    const env = Object.entries(policy.env).map(([k, v]) => `${k}=${q(v)}`);
    const filter = `"$HOME"/${q(`${STATE}/seccomp-${facts.arch}.bpf`)}`;
    lines.push(`exec env ${env.join(' ')} bwrap ${args.map(q).join(' ')} 9<${filter}`);
    return lines.join('\n');
  }

  /** A shell program (run outside the sandbox) that removes this identity's private /tmp: the identity is gone. */
  removeScript(): string {
    return `rm -rf -- "$HOME"/${shellQuote(`${STATE}/sandbox/${this.target.id}`)}`;
  }

  /** Where the sandbox's exports file is, inside (its private /tmp). */
  get envFile(): string {
    return '/tmp/.switchboard/exports.sh';
  }
}

/**
 * A shell program that prints the host's id of the process group `pgid` of the PID namespace `ns` (`pid:[N]`, as a
 * shell inside said of itself), found through /proc (`NSpgid:`'s last field is the namespace's id); nothing when the
 * group is gone. The caller then ends that group as any other. The program is namespaceProcs.sh.
 */
export function namespaceGroupScript(ns: string, pgid: number): string {
  return `${shellAssignments({ __sb_ns: ns, __sb_pg: Math.trunc(pgid) })}\n${namespaceProgram}`;
}

/** A shell program that ends every process in the PID namespace `ns` (a sandboxed shell's sandbox): KILL to each. */
export function namespaceKillScript(ns: string): string {
  return `${shellAssignments({ __sb_ns: ns, __sb_pg: '' })}\n${namespaceProgram}`;
}
