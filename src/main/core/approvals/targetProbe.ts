// Looks on the target for what a judgement needs (probeFacts): where paths lead, what the files a command runs hold,
// and the git config and hooks it runs. One round trip: a short POSIX script run through the target's own exec, so
// on a sandboxed local target it sees what the command will see from inside the sandbox.
import { randomBytes } from 'node:crypto';
import { readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, posix, resolve } from 'node:path';
import type { Environment } from '../backends/index.js';
import {
  MAX_PROBED_FILE_BYTES,
  parseGitKey,
  type FileFact,
  type GitFact,
  type ProbeFacts,
  type ProbeNeeds,
  type TreeFact,
} from './policy/probeFacts.js';

/** Reads what the policy asks about, on one target. */
export interface TargetProbe {
  lookup(needs: ProbeNeeds, signal?: AbortSignal): Promise<ProbeFacts>;
}

/** At most this many files (scripts and hooks) are read in one look; more ask. */
const MAX_FILES = 16;
/** How long a look may take before the call fails with the reason. */
export const PROBE_TIMEOUT_MS = 20_000;

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Where `realpath -m` is missing (busybox), the same by hand, one path at a time: follow links from the left, and
 * append what does not exist yet as written. The names are the probe's own: the session's variables stay as they were.
 */
const realPathFn =
  `__sbp_r() {
  __sbp_p=$1; __sbp_rest=; __sbp_n=0
  while [ $__sbp_n -lt 64 ]; do __sbp_n=$((__sbp_n+1))
    if [ -L "$__sbp_p" ]; then __sbp_t=$(readlink -- "$__sbp_p"); case $__sbp_t in /*) __sbp_p=$__sbp_t;; ` +
  `*) __sbp_p=$(dirname -- "$__sbp_p")/$__sbp_t;; esac
    elif [ -e "$__sbp_p" ]; then __sbp_p=$(readlink -f -- "$__sbp_p" 2>/dev/null || printf '%s' "$__sbp_p"); break
    elif [ "$__sbp_p" = / ] || [ -z "$__sbp_p" ]; then break
    else __sbp_rest=/$(basename -- "$__sbp_p")$__sbp_rest; __sbp_p=$(dirname -- "$__sbp_p"); fi
  done
  __sbp_o="\${__sbp_p%/}$__sbp_rest"; printf '%s\\n' "\${__sbp_o:-/}"
}`;

/**
 * One file's fact after its marker: missing, not a file, or its first MAX+1 bytes (more than MAX: too large). One
 * process per file (head), none for the tests.
 */
const readFileFn = (mark: string): string =>
  `__sbp_f() {
  if [ ! -e "$1" ]; then echo missing
  elif [ -d "$1" ]; then echo directory
  elif [ ! -f "$1" ]; then echo special
  elif [ ! -r "$1" ]; then echo unreadable
  else echo text; command -p head -c ${MAX_PROBED_FILE_BYTES + 1} -- "$1" 2>/dev/null || ` +
  `head -c ${MAX_PROBED_FILE_BYTES + 1} -- "$1"; printf '\\n%s .\\n' ${mark}
  fi
}`;

/**
 * What a recursive delete would reach: missing, or a directory or a file (a link counts as a file) and whether git
 * tracks it or a file in it (`ls-files`) and whether .gitignore ignores it (`check-ignore`); both asked from its parent
 * directory, in a subshell, with fsmonitor off, so the look starts no program a repository's config names.
 */
const treeFn = `__sbp_g() { git --no-pager -c core.fsmonitor=false "$@"; }
__sbp_t() {
  if [ -d "$1" ] && [ ! -L "$1" ]; then __sbp_d=dir; elif [ -e "$1" ] || [ -L "$1" ]; then __sbp_d=file
  else echo missing; return; fi
  __sbp_p=$(dirname -- "$1"); __sbp_b=$(basename -- "$1")
  __sbp_k=$( (cd -- "$__sbp_p" && __sbp_g ls-files -- "$__sbp_b" 2>/dev/null | head -n 1) )
  if (cd -- "$__sbp_p" && __sbp_g check-ignore -q -- "$__sbp_b") 2>/dev/null
  then __sbp_i=ignored; else __sbp_i=kept; fi
  echo "$__sbp_d \${__sbp_k:+tracked} $__sbp_i"
}`;

/**
 * The script: every path's `realpath -m` in one process (by hand where there is none), each file's fact, and for each
 * git directory the effective config (`git config -l -z`) and the executable hooks of `git rev-parse --git-path
 * hooks` (which honours core.hooksPath). Programs come from the system's default PATH (`command -p`), not from one an
 * agent exported; it sets no variable of the session's and starts as few processes as it can (each costs a few ms).
 */
export function probeScript(
  needs: ProbeNeeds,
  mark: string,
): { script: string; paths: string[]; files: string[]; dirs: string[]; trees: string[] } {
  const ok = (p: string): boolean => !/[\n\0]/.test(p);
  const paths = [...needs.paths].filter(ok);
  const files = [...needs.files].filter(ok).slice(0, MAX_FILES);
  const dirs = [...needs.git].filter((k) => ok(parseGitKey(k).dir)).slice(0, 4);
  const trees = [...(needs.trees ?? [])].filter((p) => ok(p) && p.startsWith('/')).slice(0, MAX_FILES);
  const quoted = paths.map(quote).join(' ');
  const lines = [
    ...(paths.length
      ? [
          realPathFn,
          `printf '%s R\\n' ${mark}`,
          // Printed only when realpath took every path: busybox's takes `-m` for a path, prints the paths it can and
          // fails, and its lines followed by the fallback's would pair paths with the wrong answers.
          `if __sbp_o=$(command -p realpath -m -- ${quoted} 2>/dev/null) || ` +
            `__sbp_o=$(realpath -m -- ${quoted} 2>/dev/null); then printf '%s\\n' "$__sbp_o"; ` +
            `else for __sbp_x in ${quoted}; do __sbp_r "$__sbp_x"; done; fi`,
        ]
      : []),
    ...(files.length || dirs.length ? [readFileFn(mark)] : []),
    ...files.map((p, i) => `printf '%s F ${i} ' ${mark}; __sbp_f ${quote(p)}`),
    ...dirs.map((key, i) => {
      const { dir, hooks } = parseGitKey(key);
      return [
        `printf '%s G ${i}\\n' ${mark}`,
        `if ! command -v git >/dev/null 2>&1; then echo nogit; elif cd -- ${quote(dir)} 2>/dev/null; then`,
        hooks
          ? `  __sbp_h=$(git rev-parse --git-path hooks 2>/dev/null); case $__sbp_h in ''|/*) ;; ` +
            `*) __sbp_h="$PWD/$__sbp_h";; esac; echo "hooks $__sbp_h"`
          : '  echo nohooks',
        `  printf '%s C\\n' ${mark}; git config -l -z 2>/dev/null; printf '\\n'`,
        ...(hooks
          ? [
              `  if [ -n "$__sbp_h" ]; then __sbp_n=0; for __sbp_x in "$__sbp_h"/*; ` +
                `do case $__sbp_x in *.sample) continue;; esac; [ -f "$__sbp_x" ] && [ -x "$__sbp_x" ] || ` +
                `continue`,
              `    __sbp_n=$((__sbp_n+1)); [ $__sbp_n -gt ${MAX_FILES} ] && break; ` +
                `printf '%s H %s ' ${mark} "\${__sbp_x##*/}"; __sbp_f "$__sbp_x"; done; fi`,
            ]
          : []),
        `else echo nodir; fi`,
      ].join('\n');
    }),
    ...trees.map((p, i) => `printf '%s T ${i} ' ${mark}; __sbp_t ${quote(p)}`),
    `printf '%s E\\n' ${mark}`,
  ];
  if (trees.length) lines.splice(lines.length - trees.length - 1, 0, treeFn);
  return { script: lines.join('\n'), paths, files, dirs, trees };
}

/** Reads the script's output back into facts; whatever it did not answer stays unanswered. */
export function parseProbe(
  output: string,
  mark: string,
  asked: { paths: string[]; files: string[]; dirs: string[]; trees?: string[] },
): ProbeFacts {
  const real = new Map<string, string>();
  const files = new Map<string, FileFact>();
  const git = new Map<string, GitFact>();
  const trees = new Map<string, TreeFact>();
  const end = output.indexOf(`${mark} E\n`);
  const body = end >= 0 ? output.slice(0, end) : output;
  // Sections start at a marker line; a file's text ends at the marker that follows it (`<mark> .`).
  const sections = body.split(`${mark} `).slice(1);
  let gitAt: { dir: string; config: [string, string][]; hooksDir: string; hooks: Map<string, FileFact> } | undefined;
  const fileFact = (rest: string): FileFact => {
    const nl = rest.indexOf('\n');
    const head = nl >= 0 ? rest.slice(0, nl) : rest;
    if (head === 'missing') return { kind: 'missing' };
    if (head === 'text') {
      const text = rest.slice(nl + 1).replace(/\n$/, '');
      const size = Buffer.byteLength(text);
      // A program (`/usr/bin/node`, a compiled binary) is not a script, however large: its start says so, and the
      // policy does not judge a binary by its content (runFiles.ts languageOf).
      const binary = text.startsWith('\x7fELF') || text.slice(0, 1024).includes('\0');
      if (size > MAX_PROBED_FILE_BYTES && binary) return { kind: 'text', text: text.slice(0, 1024) };
      return size > MAX_PROBED_FILE_BYTES ? { kind: 'too_large', size } : { kind: 'text', text };
    }
    if (head.startsWith('large ')) return { kind: 'too_large', size: Number(head.slice(6)) };
    if (head === 'directory') return { kind: 'unreadable', problem: 'it is a directory' };
    if (head === 'special') return { kind: 'unreadable', problem: 'it is not a regular file' };
    return { kind: 'unreadable', problem: 'permission denied' };
  };
  const closeGit = (): void => {
    if (gitAt) git.set(gitAt.dir, { kind: 'repo', config: gitAt.config, hooksDir: gitAt.hooksDir, hooks: gitAt.hooks });
    gitAt = undefined;
  };
  for (const section of sections) {
    const m = /^(R|F|G|C|H|T|\.)(?: (\S+))?[ \n]?/.exec(section);
    if (!m) continue;
    const rest = section.slice(m[0].length);
    const kind = m[1];
    if (kind === '.') continue;
    if (kind === 'R') {
      // One line a path, in the order asked.
      rest
        .split('\n')
        .slice(0, asked.paths.length)
        .forEach((line, i) => {
          if (line.startsWith('/')) real.set(asked.paths[i]!, posix.normalize(line).replace(/(.)\/$/, '$1'));
        });
    } else if (kind === 'F') {
      const p = asked.files[Number(m[2])];
      if (p !== undefined) files.set(p, fileFact(rest));
    } else if (kind === 'G') {
      closeGit();
      const dir = asked.dirs[Number(m[2])];
      if (dir === undefined) continue;
      const first = rest.split('\n')[0]!;
      if (first === 'nogit') git.set(dir, { kind: 'no_git' });
      else if (first === 'nodir') git.set(dir, { kind: 'no_git' });
      else
        gitAt = {
          dir,
          config: [],
          hooksDir: first === 'nohooks' ? '' : first.replace(/^hooks ?/, ''),
          hooks: new Map(),
        };
    } else if (kind === 'C' && gitAt) {
      for (const entry of rest.replace(/^\n/, '').split('\0')) {
        const nl = entry.indexOf('\n');
        if (entry.trim() === '') continue;
        gitAt.config.push(nl >= 0 ? [entry.slice(0, nl), entry.slice(nl + 1)] : [entry, '']);
      }
    } else if (kind === 'H' && gitAt) gitAt.hooks.set(m[2]!, fileFact(rest));
    else if (kind === 'T') {
      const p = asked.trees?.[Number(m[2])];
      const line = rest.split('\n')[0]!.trim();
      if (p === undefined) continue;
      const kind = line.split(' ')[0];
      if (kind === 'missing') trees.set(p, { kind });
      else if (kind === 'dir' || kind === 'file')
        trees.set(p, { kind, tracked: line.includes('tracked'), ignored: line.endsWith('ignored') });
    }
  }
  closeGit();
  return { real, files, git, trees };
}

/** A probe that runs its script through the target's exec (SSH, Docker, a plugin, a sandboxed local target). */
export function execProbe(env: () => Environment): TargetProbe {
  return {
    async lookup(needs, signal) {
      const mark = `__sb_probe_${randomBytes(8).toString('hex')}__`;
      const { script, ...asked } = probeScript(needs, mark);
      const result = await env().exec(script, {
        cwd: '/',
        lookOnly: true,
        timeoutMs: PROBE_TIMEOUT_MS,
        maxOutputChars: (asked.files.length + asked.dirs.length * MAX_FILES + 1) * (MAX_PROBED_FILE_BYTES + 4096),
        ...(signal ? { signal } : {}),
      });
      return parseProbe(result.output, mark, asked);
    },
  };
}

/**
 * Where a path on this machine leads once symlinks are followed, as `realpath -m` says: a link whose target does not
 * exist yet (`ak` → ~/.ssh/authorized_keys) is followed too, and what does not exist is kept as written.
 */
export function realPathOf(path: string): string {
  let p = path;
  const rest: string[] = [];
  for (let hops = 0; hops < 64; hops++) {
    try {
      return join(realpathSync(p), ...rest);
    } catch {
      // Not there (or a dangling link): look at this name itself, then its parent.
    }
    let link: string | undefined;
    try {
      link = readlinkSync(p);
    } catch {
      // not a link (or gone): the path is taken as it is
      link = undefined;
    }
    if (link !== undefined) {
      p = resolve(dirname(p), link);
      continue;
    }
    if (p === dirname(p)) return join(p, ...rest);
    rest.unshift(basename(p));
    p = dirname(p);
  }
  return path;
}

/**
 * For a target whose commands run unsandboxed on this machine: paths are resolved here (no process started, so a
 * write_file costs no round trip); files and git still go through the target's exec.
 */
export function hostPathsProbe(inner?: TargetProbe): TargetProbe {
  return {
    async lookup(needs, signal) {
      const real = new Map([...needs.paths].map((p) => [p, realPathOf(p)]));
      if ((needs.files.size === 0 && needs.git.size === 0 && !needs.trees?.size) || !inner)
        return { real, files: new Map(), git: new Map() };
      const rest = await inner.lookup(
        { paths: new Set(), files: needs.files, git: needs.git, trees: needs.trees ?? new Set() },
        signal,
      );
      return { real, files: rest.files, git: rest.git, trees: rest.trees ?? new Map() };
    },
  };
}
