// Builds everything `npm start`, `switchboard` and the tests run: the CLI/Core bundle, the renderer, Electron's main and preload.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv[2];
const started = Date.now();

/** The Core runs under plain Node (STYLE.md §1): an `electron` import reaching this bundle fails the build. */
const noElectron = {
  name: 'no-electron-in-core',
  setup(b) {
    b.onResolve({ filter: /^electron(\/.*)?$/ }, (args) => ({
      errors: [{ text: `${args.importer.replace(root + '/', '')} imports electron; only src/main/index.ts, preload.ts and transport/electron.ts may` }],
    }));
  },
};

/** Modules that locate files through import.meta.url get the CommonJS equivalent. */
const importMetaShim = {
  define: { 'import.meta.url': '__sbImportMetaUrl' },
  banner: { js: "const __sbImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};

async function buildNode() {
  // The Core runs under plain Node: one CommonJS bundle (so CommonJS dependencies such as ssh2 keep their
  // named exports), dependencies left in node_modules (node-pty is native).
  await build({
    entryPoints: { 'cli/main': join(root, 'src/main/cli/main.ts') },
    outdir: join(root, 'out'),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    plugins: [noElectron],
    ...importMetaShim,
    sourcemap: true,
    logLevel: 'warning',
  });
}

function buildRenderer() {
  execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(root, 'src/renderer/vite.config.ts'), '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
}

async function buildElectron() {
  // Electron's main process: a CommonJS bundle with electron itself external.
  await build({
    entryPoints: { 'main/index': join(root, 'src/main/index.ts') },
    outdir: join(root, 'out'),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    external: ['electron'],
    ...importMetaShim,
    sourcemap: true,
    logLevel: 'warning',
  });
  // The preload runs sandboxed, where `require` knows only 'electron' (and a few polyfills): everything else is
  // bundled in, and nothing may require Node modules.
  await build({
    entryPoints: { 'preload/preload': join(root, 'src/main/preload.ts') },
    outdir: join(root, 'out'),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'cjs',
    external: ['electron'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  const preload = readFileSync(join(root, 'out/preload/preload.cjs'), 'utf8');
  const required = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]).filter((r) => r !== 'electron');
  if (required.length) throw new Error(`the sandboxed preload requires ${required.join(', ')}; it may require only electron`);
}

try {
  if (!only || only === 'node') await buildNode();
  if (!only || only === 'renderer') buildRenderer();
  if (!only || only === 'electron') await buildElectron();
} catch (err) {
  // esbuild and vite have printed what failed; a stack trace of the build script would only bury it.
  console.error(`build failed${err instanceof Error && !('errors' in err) ? `: ${err.message}` : ''}`);
  process.exit(1);
}
console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)}s`);
