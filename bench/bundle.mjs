// What the benches that time Core modules directly share: each TypeScript entry bundled by esbuild into out/bench
// (npm packages left external) and imported.
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { programTextLoader } from '../scripts/programText.mjs';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bundles `{ name: source.ts }` into out/bench/<name>.mjs and returns `{ name: its module }`. */
export async function bundled(entryPoints) {
  const outdir = join(root, 'out/bench');
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints,
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    // The shell and awk programs the Core's modules import, as their text.
    loader: programTextLoader,
    logLevel: 'warning',
  });
  const modules = {};
  for (const name of Object.keys(entryPoints)) {
    modules[name] = await import(pathToFileURL(join(outdir, `${name}.mjs`)).href);
  }
  return modules;
}
