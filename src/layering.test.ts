// Keeps the layers of docs/style.md §1 true: core never imports electron, the renderer and shared never import Node.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { existsSync } from 'node:fs';

const src = join(__dirname);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(f) ? [p] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

function offenders(dir: string, bad: (spec: string) => boolean): string[] {
  // Build configs run in Node, not in the layer they configure.
  return files(join(src, dir))
    .filter((f) => !f.endsWith('.config.ts'))
    .flatMap((f) =>
      imports(f)
        .filter(bad)
        .map((s) => `${relative(src, f)} imports ${s}`),
    );
}

describe('layers', () => {
  it('src/main/core never imports electron', () => {
    expect(offenders('main/core', (s) => s === 'electron' || s.startsWith('electron/'))).toEqual([]);
  });
  it('only index.ts, preload.ts and transport/electron.ts import electron', () => {
    const allowed = new Set(['main/index.ts', 'main/preload.ts', 'main/transport/electron.ts']);
    const found = files(join(src, 'main'))
      .filter((f) => imports(f).includes('electron'))
      .map((f) => relative(src, f))
      .filter((f) => !allowed.has(f));
    expect(found).toEqual([]);
  });
  it('src/shared imports nothing but zod and itself (its tests also vitest)', () => {
    expect(
      offenders('shared', (s) => s !== 'zod' && !s.startsWith('./')).filter(
        (o) => !/\.test\.ts imports vitest$/.test(o),
      ),
    ).toEqual([]);
  });
  it('the renderer never imports node: modules or main-side code (its tests may read files with node:)', () => {
    expect(
      offenders(
        'renderer',
        (s) => s.startsWith('node:') || s.includes('/main/') || ['fs', 'child_process', 'electron'].includes(s),
      ).filter((o) => !/\.test\.ts imports node:[a-z]+$/.test(o)),
    ).toEqual([]);
  });
});

/** The files a file imports by relative path, resolved to the .ts/.tsx beside them (type-only imports count too). */
function localImports(file: string): string[] {
  return imports(file)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s.replace(/\.js$/, '')))
    .flatMap((p) => [`${p}.ts`, `${p}.tsx`, join(p, 'index.ts')].find((c) => existsSync(c)) ?? []);
}

/** Every import cycle among `all`, each as the files on it, found by depth-first search. */
function importCycles(all: string[]): string[][] {
  const graph = new Map(all.map((f) => [f, localImports(f)]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (!graph.has(g)) continue;
      if (state.get(g) === 'open') cycles.push([...stack.slice(stack.indexOf(g)), g].map((x) => relative(src, x)));
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return cycles;
}

describe('the import graph of src/main (docs/design.md: the Core only composes; nothing below it imports it)', () => {
  const main = files(join(src, 'main'));
  it('no file under src/main/core but core.ts imports core.ts (tests and their helpers may build a Core)', () => {
    const coreTs = join(src, 'main/core/core.ts');
    const isTest = (f: string): boolean => /\.test\.ts$|\/test[A-Z][^/]*\.ts$/.test(f);
    const found = main
      .filter((f) => f.startsWith(join(src, 'main/core') + '/') && f !== coreTs && !isTest(f))
      .filter((f) => localImports(f).includes(coreTs))
      .map((f) => relative(src, f));
    expect(found).toEqual([]);
  });
  it('src/main has no import cycles', () => {
    expect(importCycles(main)).toEqual([]);
  });
});

/**
 * The folders of src/main, lowest first (docs/architecture.md, "Folders and their order"): a folder imports only
 * folders before it. `core` is the Core's root files (core.ts and what composes the nouns), `main` src/main's own.
 */
const folderOrder = [
  'platform',
  'sandbox',
  'backends',
  'config',
  'sessions',
  'outputs',
  'activity',
  'processes',
  'tools',
  'plugins',
  'registry',
  'targets',
  'approvals',
  'panes',
  'dispatch',
  'doctor',
  'person',
  'events',
  'workspace',
  'mcp',
  'core',
  'transport',
  'cli',
  'main',
];
/**
 * Lazy loads that name a file behind a face: loaded at first use, so the command or the Core that imports the face
 * does not load them at start (tree-sitter's grammars; the MCP SDK; every backend library for `switchboard doctor`).
 */
const lazyLoads = new Set([
  'main/core/core.ts -> main/core/approvals/policy/commandPolicy.ts',
  'main/cli/commands/approvalsCheck.ts -> main/core/approvals/policy/commandPolicy.ts',
  'main/cli/commands/doctor.ts -> main/core/backends/builtins.ts',
  'main/transport/host.ts -> main/core/mcp/mcpHttp.ts',
]);

/** Second faces beside a folder's index.ts (scripts/deepImports.mjs `secondFaces` says which files are behind each). */
const secondFaces = new Set(['main/core/backends/providers.ts']);

describe('the folders of src/main (docs/architecture.md: a folder is a module, with a face and a place)', () => {
  const main = files(join(src, 'main'));
  const isTestFile = (f: string): boolean => /\.test\.ts$|\/test[A-Z][^/]*\.ts$/.test(f);
  const folderOf = (f: string): string => {
    const [top, noun, more] = relative(join(src, 'main'), f).split('/');
    if (top === 'core') return more ? noun! : 'core';
    return noun ? top! : 'main';
  };
  const coreFolder = (f: string): string | undefined =>
    f.startsWith(join(src, 'main/core') + '/') && folderOf(f) !== 'core' ? folderOf(f) : undefined;
  /** The files a file loads with `import(…)`. */
  const lazy = (f: string): string[] =>
    [...readFileSync(f, 'utf8').matchAll(/import\s*\(\s*['"](\.[^'"]+)['"]/g)].map(
      (m) => resolve(dirname(f), m[1]!.replace(/\.js$/, '')) + '.ts',
    );
  /** Every import of a file in another folder, as [importer, imported] (type-only imports count too). */
  const crossings = main.flatMap((f) =>
    localImports(f)
      .filter((t) => t.startsWith(join(src, 'main') + '/') && folderOf(t) !== folderOf(f))
      .map((t) => [f, t] as const),
  );

  it('every folder is in the order, once', () => {
    const folders = [...new Set(main.map(folderOf))].sort();
    expect([...folderOrder].sort()).toEqual(folders);
  });
  it("nothing imports another core folder's files but its faces (tests may reach its test helpers)", () => {
    const found = crossings
      .filter(([, t]) => coreFolder(t) && !t.endsWith(`/${coreFolder(t)}/index.ts`) && !isTestFile(t))
      .filter(([, t]) => !secondFaces.has(relative(src, t)))
      .filter(([f, t]) => !(lazyLoads.has(`${relative(src, f)} -> ${relative(src, t)}`) && lazy(f).includes(t)))
      .map(([f, t]) => `${relative(src, f)} -> ${relative(src, t)}`);
    expect(found).toEqual([]);
  });
  it('every import between folders goes down the order (tests and their helpers may reach up)', () => {
    const rank = (f: string): number => folderOrder.indexOf(folderOf(f));
    const found = crossings
      .filter(([f, t]) => !isTestFile(f) && rank(t) > rank(f))
      .map(([f, t]) => `${folderOf(f)} -> ${folderOf(t)} (${relative(src, f)} imports ${relative(src, t)})`);
    expect(found).toEqual([]);
  });
  it('no cycle between folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const [f, t] of crossings.filter(([f]) => !isTestFile(f)))
      edges.set(folderOf(f), (edges.get(folderOf(f)) ?? new Set()).add(folderOf(t)));
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some((n) => n === to || (!seen.has(n) && (seen.add(n), reaches(n, to, seen))));
    expect([...edges.keys()].filter((folder) => reaches(folder, folder))).toEqual([]);
  });
});
