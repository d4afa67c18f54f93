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
import program from './targetProbe.sh';

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
 * The script: targetProbe.sh's functions, then a line that sets the marker and the limits and one call a section,
 * each path a quoted argument: every path's `realpath -m` in one process (by hand where there is none), each file's
 * fact, for each git directory the effective config and executable hooks, and what each recursive delete would reach.
 * Programs come from the system's default PATH (`command -p`), not from one an agent exported; it sets no variable of
 * the session's and starts as few processes as it can (each costs a few ms).
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
  const lines = [
    program,
    `__sbp_m=${quote(mark)}; __sbp_max=${MAX_PROBED_FILE_BYTES + 1}; __sbp_hooks=${MAX_FILES}`,
    ...(paths.length ? [`__sbp_paths ${paths.map(quote).join(' ')}`] : []),
    ...files.map((p, i) => `__sbp_file ${i} ${quote(p)}`),
    ...dirs.map((key, i) => {
      const { dir, hooks } = parseGitKey(key);
      return `__sbp_git ${i} ${hooks ? 1 : 0} ${quote(dir)}`;
    }),
    ...trees.map((p, i) => `__sbp_tree ${i} ${quote(p)}`),
    `printf '%s E\\n' "$__sbp_m"`,
  ];
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
