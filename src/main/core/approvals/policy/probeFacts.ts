// What the policy may learn from the target before it judges a call: where paths lead once links are followed, what
// is in the files a command runs, and the git config and hooks a git command runs. The scanner asks for these
// (ProbeNeeds) in a first pass; the approval step reads them on the target and the scanner judges again with them.

/** The most of a file that is read to judge it; a larger file asks. */
export const MAX_PROBED_FILE_BYTES = 256 * 1024;

/** What was found at a path a command runs. */
export type FileFact =
  | { kind: 'text'; text: string }
  | { kind: 'missing' }
  | { kind: 'too_large'; size: number }
  | { kind: 'unreadable'; problem: string };

/** The git a command would run in one directory: its effective config and the hooks that are there. */
export type GitFact =
  | {
      kind: 'repo';
      config: ReadonlyArray<readonly [string, string]>;
      hooksDir: string;
      hooks: ReadonlyMap<string, FileFact>;
    }
  | { kind: 'no_git' }
  | { kind: 'unreadable'; problem: string };

export interface ProbeFacts {
  /** Absolute lexical path → where it leads with every link followed (`realpath -m` on the target). */
  readonly real: ReadonlyMap<string, string>;
  /** Absolute lexical path → what a command running it would read. */
  readonly files: ReadonlyMap<string, FileFact>;
  /** A git look (gitKey: directory, hooks or not) → its config, and its hooks when they were asked for. */
  readonly git: ReadonlyMap<string, GitFact>;
}

/**
 * How a git look is asked for: the directory, and whether its hooks are wanted too (only commands that change the
 * repository run hooks; `git status` needs the config alone, one git process fewer).
 */
export function gitKey(dir: string, hooks: boolean): string {
  return hooks ? `hooks:${dir}` : `config:${dir}`;
}

export function parseGitKey(key: string): { dir: string; hooks: boolean } {
  return key.startsWith('hooks:')
    ? { dir: key.slice(6), hooks: true }
    : { dir: key.replace(/^config:/, ''), hooks: false };
}

/** What a scan wanted to know and did not (yet). */
export interface ProbeNeeds {
  readonly paths: Set<string>;
  readonly files: Set<string>;
  /** gitKey()s. */
  readonly git: Set<string>;
}

export function emptyNeeds(): ProbeNeeds {
  return { paths: new Set(), files: new Set(), git: new Set() };
}

export function emptyFacts(): ProbeFacts {
  return { real: new Map(), files: new Map(), git: new Map() };
}

/** The needs the facts do not answer yet. */
export function unanswered(needs: ProbeNeeds, facts: ProbeFacts): ProbeNeeds {
  return {
    paths: new Set([...needs.paths].filter((p) => !facts.real.has(p))),
    files: new Set([...needs.files].filter((p) => !facts.files.has(p))),
    git: new Set([...needs.git].filter((p) => !facts.git.has(p))),
  };
}

export function needsNothing(n: ProbeNeeds): boolean {
  return n.paths.size === 0 && n.files.size === 0 && n.git.size === 0;
}

/** Facts joined: `more` adds to (never replaces) what `base` knows. */
export function mergeFacts(base: ProbeFacts, more: ProbeFacts): ProbeFacts {
  return {
    real: new Map([...more.real, ...base.real]),
    files: new Map([...more.files, ...base.files]),
    git: new Map([...more.git, ...base.git]),
  };
}

/** Only the facts these needs asked for: what a judgement depended on. */
export function restrictFacts(facts: ProbeFacts, needs: ProbeNeeds): ProbeFacts {
  const pick = <T>(m: ReadonlyMap<string, T>, keys: Set<string>): Map<string, T> =>
    new Map([...m].filter(([k]) => keys.has(k)));
  return {
    real: pick(facts.real, needs.paths),
    files: pick(facts.files, needs.files),
    git: pick(facts.git, needs.git),
  };
}

/**
 * A stable text of every fact a judgement used, for the approval's binding: what was approved is this content at
 * these places, and a later read that differs is another call.
 */
export function factsDigestText(facts: ProbeFacts): string {
  const file = (f: FileFact): unknown =>
    f.kind === 'text' ? ['text', f.text] : f.kind === 'too_large' ? ['too_large', f.size] : [f.kind];
  const git = (g: GitFact): unknown =>
    g.kind === 'repo'
      ? ['repo', g.config, g.hooksDir, [...g.hooks].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, file(v)])]
      : [g.kind];
  const sorted = <T>(m: ReadonlyMap<string, T>, f: (v: T) => unknown): unknown =>
    [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, f(v)]);
  return JSON.stringify([sorted(facts.real, (v) => v), sorted(facts.files, file), sorted(facts.git, git)]);
}
