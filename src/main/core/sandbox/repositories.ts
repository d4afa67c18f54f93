// The git repositories under a sandbox's writable roots, found by a bounded walk: their `.git/config`, hooks and the
// other repository rows of the deny-write table stay read-only inside. Bounded (depth and folders) because a home can
// hold a great many folders; what lies deeper is not found (README's Sandbox section says so).
import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** How far below a writable root the walk looks, and how many folders it reads at most per root. */
export const REPOSITORY_WALK = { depth: 4, folders: 4000 } as const;

/** Folders never walked into: dependencies and build output hold other people's repositories, never the person's. */
const SKIPPED = new Set([
  'node_modules',
  'vendor',
  'target',
  'dist',
  'build',
  'venv',
  '.venv',
  '__pycache__',
  '.git',
  'Library',
  'snap',
]);

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // unreadable or gone: nothing under it is found
  }
}

/** The work trees (folders holding a `.git` folder) at or below each root, breadth first, within REPOSITORY_WALK. */
export function findRepositories(roots: readonly string[], limit = REPOSITORY_WALK): string[] {
  const found = new Set<string>();
  for (const root of roots) {
    let level = [root];
    let read = 0;
    for (let depth = 0; depth <= limit.depth && level.length > 0 && read < limit.folders; depth++) {
      const next: string[] = [];
      for (const dir of level) {
        if (read++ >= limit.folders) break;
        for (const e of entries(dir)) {
          if (e.name === '.git' && e.isDirectory()) found.add(dir);
          // Hidden folders hold tools' state (caches, toolchains), not the person's repositories.
          else if (e.isDirectory() && !e.name.startsWith('.') && !SKIPPED.has(e.name)) next.push(join(dir, e.name));
        }
      }
      level = next;
    }
  }
  return [...found];
}

/**
 * The git folders of a repository's submodules (`.git/modules/NAME`, nested ones too): each holds a `config` and
 * `hooks` that git runs when it walks into the submodule.
 */
export function submoduleGitDirs(repositories: readonly string[], depth = 4): string[] {
  const found: string[] = [];
  const walk = (dir: string, left: number): void => {
    for (const e of entries(dir)) {
      if (!e.isDirectory()) continue;
      const sub = join(dir, e.name);
      const inner = entries(sub);
      if (inner.some((x) => x.name === 'config' && x.isFile()) && inner.some((x) => x.name === 'HEAD')) {
        found.push(sub);
        if (left > 0 && inner.some((x) => x.name === 'modules' && x.isDirectory()))
          walk(join(sub, 'modules'), left - 1);
      } else if (left > 0) walk(sub, left - 1); // a submodule named with a slash (libs/x) nests folders
    }
  };
  for (const repo of repositories) walk(join(repo, '.git', 'modules'), depth);
  return found;
}
