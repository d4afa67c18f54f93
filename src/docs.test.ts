// Keeps docs/architecture.md true to the tree: every file or folder it names exists, and it names every folder of
// src/main/core (a folder moved, renamed or added without the page is a failure here, not a reader's surprise).
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = join(__dirname, '..');
const page = readFileSync(join(repo, 'docs/architecture.md'), 'utf8');
const notOurs = new Set(['node_modules', '.git', 'out', '.test-env', 'dist', 'release']);

/** Every file and folder of the repository, relative, folders with a trailing slash. */
function tree(dir = repo, rel = ''): string[] {
  return readdirSync(join(dir), { withFileTypes: true }).flatMap((d) => {
    if (notOurs.has(d.name)) return [];
    const path = rel ? `${rel}/${d.name}` : d.name;
    return d.isDirectory() ? [`${path}/`, ...tree(join(dir, d.name), path)] : [path];
  });
}

/**
 * The repository paths the page names: in `code`, a word ending in a source extension or in a slash; in the layer
 * picture, a word with a slash. Words under the profile (`state/…`), the build output (`out/…`), host paths (`/`,
 * `~`) and variables (`$…`) are not the repository's.
 */
function namedPaths(markdown: string): string[] {
  const named = new Set<string>();
  const ours = (w: string) => !/^(state|out)\//.test(w);
  for (const m of markdown.matchAll(/`([^`\n]+)`/g))
    for (const w of m[1]!.split(/[\s,()]+/))
      if (/^[\w.-][\w./<>-]*(\/|\.(ts|tsx|mjs|cjs|sh|awk|md|yml))$/.test(w) && ours(w)) named.add(w);
  const picture = markdown.split('```')[1] ?? '';
  for (const m of picture.matchAll(/(?<![\w/.])([a-z]\w*\/(?:\w+\/?)*)/gi)) if (ours(m[1]!)) named.add(m[1]!);
  return [...named];
}

/** Whether `path` is the tail of a file or folder of `files` (`core/x.ts`, `x.ts`, `mcp/mcpHttp` for a .ts file). */
function exists(files: readonly string[], path: string): boolean {
  // `backends/<name>/fields.ts` names each backend's file: any one folder stands for <name>.
  const pattern = new RegExp(
    `(^|/)${path
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/<\w+>/g, '[^/]+')
      .replace(/\/$/, '')}(/|\\.tsx?)?$`,
  );
  return files.some((f) => pattern.test(f));
}

describe('docs/architecture.md', () => {
  const files = tree();

  it('names only files and folders that exist', () => {
    const named = namedPaths(page);
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter((p) => !exists(files, p))).toEqual([]);
  });

  it('names every folder of src/main/core', () => {
    const folders = readdirSync(join(repo, 'src/main/core'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `${d.name}/`);
    expect(folders.filter((f) => !page.includes(f))).toEqual([]);
  });

  it.each<[string, string, string[]]>([
    ['a file in code', 'see `core/panes/paneBatch.ts` here', ['core/panes/paneBatch.ts']],
    ['a folder in code, a profile path left out', '`core/agent/` and `state/cwd/`', ['core/agent/']],
    ['method names and host paths are not paths', '`tools/call` `~/.ssh` `/run/docker.sock`', []],
    ['a folder in the picture', '```\n │ mcp/ and agent/ │\n```', ['mcp/', 'agent/']],
  ])('finds %s', (_name, markdown, expected) => {
    expect(namedPaths(markdown)).toEqual(expected);
  });

  it.each<[string, boolean]>([
    ['core/panes/paneBatch.ts', true],
    ['paneBatch.ts', true],
    ['mcp/mcpHttp', true],
    ['core/agent/', false],
    ['backends/<name>/fields.ts', true],
    ['anes/paneBatch.ts', false],
  ])('%s exists: %s', (path, expected) => {
    expect(exists(files, path)).toBe(expected);
  });
});
