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
