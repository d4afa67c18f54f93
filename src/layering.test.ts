// Keeps the layers of STYLE.md §1 true: core never imports electron, the renderer and shared never import Node.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

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
  return files(join(src, dir)).filter((f) => !f.endsWith('.config.ts')).flatMap((f) => imports(f).filter(bad).map((s) => `${relative(src, f)} imports ${s}`));
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
  it('src/shared imports nothing but zod and itself', () => {
    expect(offenders('shared', (s) => s !== 'zod' && !s.startsWith('./'))).toEqual([]);
  });
  it('the renderer never imports node: modules or main-side code', () => {
    expect(offenders('renderer', (s) => s.startsWith('node:') || s.includes('/main/') || ['fs', 'child_process', 'electron'].includes(s))).toEqual([]);
  });
});
