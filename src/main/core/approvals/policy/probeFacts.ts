// What the policy may learn from the target before it judges a call: where paths lead once links are followed, what
// is in the files a command runs, the git config and hooks a git command runs, and whether what a recursive delete
// reaches in the workspace is generated output (git tracks nothing in it). The scanner asks for these
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

/**
 * What a recursive delete reaches in the workspace: nothing, or a directory or file (a link counts as a file: `rm -r`
 * removes the link) with what git says of it: whether it is or holds a tracked file, and whether .gitignore ignores
 * it. Outside a repository it is neither.
 */
export type TreeFact = { kind: 'missing' } | { kind: 'dir' | 'file'; tracked: boolean; ignored: boolean };

export interface ProbeFacts {
  /** Absolute lexical path → where it leads with every link followed (`realpath -m` on the target). */
  readonly real: ReadonlyMap<string, string>;
  /** Absolute lexical path → what a command running it would read. */
  readonly files: ReadonlyMap<string, FileFact>;
  /** A git look (gitKey: directory, hooks or not) → its config, and its hooks when they were asked for. */
  readonly git: ReadonlyMap<string, GitFact>;
  /** Absolute lexical path in the workspace → what is there, for a recursive delete (absent: none were asked). */
  readonly trees?: ReadonlyMap<string, TreeFact>;
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
  /** Paths a recursive delete reaches in the workspace (TreeFact). */
  readonly trees?: Set<string>;
}

export function emptyNeeds(): ProbeNeeds {
  return { paths: new Set(), files: new Set(), git: new Set(), trees: new Set() };
}

export function emptyFacts(): ProbeFacts {
  return { real: new Map(), files: new Map(), git: new Map(), trees: new Map() };
}

/** How many needs of every kind. */
export function needCount(n: ProbeNeeds): number {
  return n.paths.size + n.files.size + n.git.size + (n.trees?.size ?? 0);
}

/** The needs the facts do not answer yet. */
export function unanswered(needs: ProbeNeeds, facts: ProbeFacts): ProbeNeeds {
  return {
    paths: new Set([...needs.paths].filter((p) => !facts.real.has(p))),
    files: new Set([...needs.files].filter((p) => !facts.files.has(p))),
    git: new Set([...needs.git].filter((p) => !facts.git.has(p))),
    trees: new Set([...(needs.trees ?? [])].filter((p) => !facts.trees?.has(p))),
  };
}

export function needsNothing(n: ProbeNeeds): boolean {
  return needCount(n) === 0;
}

/** Facts joined: `more` adds to (never replaces) what `base` knows. */
export function mergeFacts(base: ProbeFacts, more: ProbeFacts): ProbeFacts {
  return {
    real: new Map([...more.real, ...base.real]),
    files: new Map([...more.files, ...base.files]),
    git: new Map([...more.git, ...base.git]),
    trees: new Map([...(more.trees ?? []), ...(base.trees ?? [])]),
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
    trees: pick(facts.trees ?? new Map(), needs.trees ?? new Set()),
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
  const trees = facts.trees?.size ? [sorted(facts.trees, (v) => v)] : [];
  return JSON.stringify([sorted(facts.real, (v) => v), sorted(facts.files, file), sorted(facts.git, git), ...trees]);
}
