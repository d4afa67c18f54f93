// The CLI's bundle loader: a bundle runs as CommonJS, its V8 code cache is written beside it and checked against the
// bundle's identity (size, times, inode), so a rebuilt bundle never runs the bytecode of the one before (V8 checks
// only the length).
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../../scripts/testEnv.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp folder with `bundle.cjs` (exporting answer() and what `require` finds) and a script that loads it. */
function fixture(answer: string): { dir: string; bundle: string; run: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bundle-'));
  dirs.push(dir);
  const bundle = join(dir, 'bundle.cjs');
  writeBundle(bundle, answer);
  const runner = join(dir, 'run.mjs');
  writeFileSync(
    runner,
    [
      `import { loadBundle } from ${JSON.stringify(join(repoRoot, 'src/main/cli/bundleLoader.ts'))};`,
      `import { createRequire } from 'node:module';`,
      `const m = loadBundle(process.argv[2]);`,
      `const listed = Object.keys(createRequire(import.meta.url).cache).includes(process.argv[2]);`,
      `console.log(JSON.stringify({ answer: m.answer(), path: m.pathJoin('a', 'b'), file: m.file, listed }));`,
    ].join('\n'),
  );
  const run = (): string => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', runner, bundle], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout;
  };
  return { dir, bundle, run };
}

function writeBundle(file: string, answer: string): void {
  writeFileSync(
    file,
    `exports.answer = function answer() { return ${JSON.stringify(answer)}; ` +
      `};\nexports.pathJoin = require('node:path').join;\nexports.file = __filename;\n`,
  );
}

/** What the loader keys a cache to: the bundle's size, modification time, inode and change time, as doubles. */
const identity = (file: string): Buffer => {
  const st = statSync(file);
  const id = Buffer.alloc(32);
  [st.size, st.mtimeMs, st.ino, st.ctimeMs].forEach((n, i) => id.writeDoubleLE(n, i * 8));
  return id;
};

describe('loadBundle', () => {
  it(
    'runs a bundle as CommonJS (require, __filename, ' + 'listed in require.cache) and writes its code cache at exit',
    () => {
      const { bundle, run } = fixture('one');
      expect(JSON.parse(run())).toEqual({ answer: 'one', path: join('a', 'b'), file: bundle, listed: true });
      const cache = readFileSync(`${bundle}.v8cache`);
      expect(cache.subarray(0, 32).equals(identity(bundle))).toBe(true);
      expect(cache.length).toBeGreaterThan(32);
      // From the cache now: the same answer.
      expect(JSON.parse(run()).answer).toBe('one');
    },
  );

  it('a rebuilt bundle of the same length runs its own code, not the cached bytecode of the one before', () => {
    const { bundle, run } = fixture('one');
    run();
    const before = readFileSync(`${bundle}.v8cache`);
    writeBundle(bundle, 'two');
    expect(JSON.parse(run()).answer).toBe('two');
    // And the cache was made again, for the new bundle.
    expect(readFileSync(`${bundle}.v8cache`).equals(before)).toBe(false);
    expect(readFileSync(`${bundle}.v8cache`).subarray(0, 32).equals(identity(bundle))).toBe(true);
  });

  it('a damaged cache file is not used and is replaced', () => {
    const { bundle, run } = fixture('one');
    writeFileSync(`${bundle}.v8cache`, Buffer.concat([identity(bundle), Buffer.from('not V8 data at all')]));
    expect(JSON.parse(run()).answer).toBe('one');
    expect(readFileSync(`${bundle}.v8cache`).length).toBeGreaterThan(32 + 'not V8 data at all'.length);
  });

  it('a bundle that imports at run time works on every start (V8 drops the import callback of cached code)', () => {
    const { dir, bundle, run } = fixture('one');
    const esm = join(dir, 'esm.mjs');
    writeFileSync(esm, 'export const value = 42;\n');
    writeFileSync(
      bundle,
      `exports.answer = function answer() { return 'one'; };\nexports.pathJoin = require('node:path').join;\n` +
        `exports.file = __filename;\n` +
        `exports.later = () => import(${JSON.stringify(esm)}).then((m) => m.value);\n`,
    );
    const runner = join(dir, 'run.mjs');
    writeFileSync(
      runner,
      readFileSync(runner, 'utf8').replace(
        'console.log(JSON.stringify({',
        'const later = await m.later();\nconsole.log(JSON.stringify({ later,',
      ),
    );
    expect(JSON.parse(run()).later).toBe(42);
    expect(JSON.parse(run()).later).toBe(42);
  });
});

describe('the build', () => {
  it('replaces each bundle whole: a command starting while it runs reads the old bundle or the new one', {
    timeout: 120_000,
  }, async () => {
    const { spawn } = await import('node:child_process');
    const { Script } = await import('node:vm');
    const file = join(repoRoot, 'out/cli/commands/serve.cjs');
    const build = spawn(process.execPath, [join(repoRoot, 'scripts/build.mjs'), 'node'], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
    let done = false;
    const exited = new Promise<number | null>((resolve) =>
      build.once('exit', (code) => ((done = true), resolve(code))),
    );
    const seen: string[] = [];
    let reads = 0;
    // Reads and compiles the bundle as the loader does, as often as it can while the build writes.
    while (!done) {
      // Not built yet (a clone whose first build this is): nothing to read, so nothing read half.
      if (existsSync(file)) {
        let source = '';
        try {
          source = readFileSync(file, 'utf8');
          if (source.length === 0) throw new Error('an empty bundle');
          new Script(source, { filename: file });
        } catch (err) {
          seen.push(`${source.length} bytes: ${(err as Error).message}`);
        }
        reads++;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await exited).toBe(0);
    expect(reads).toBeGreaterThan(5);
    expect(seen).toEqual([]);
  });
});
