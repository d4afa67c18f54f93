// `npm run lint`: Biome (format and lint, nothing written), the type checker, and the longest line. Fast enough to run
// before every commit; `npm test` runs it first. Exits non-zero with one closing line naming what failed.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_LINE = 120;
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const started = Date.now();

/** Runs a tool from node_modules/.bin, its output kept until it ends so two tools' lines never interleave. */
function run(name, bin, args) {
  return new Promise((resolve) => {
    const child = spawn(join(root, 'node_modules', '.bin', bin), args, { cwd: root });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => {
      const why = e.code === 'ENOENT' ? 'is not installed here (it is a devDependency): run npm ci' : e.message;
      resolve({ name, ok: false, output: `${bin} ${why}\n` });
    });
    child.on('close', (code) => resolve({ name, ok: code === 0, output }));
  });
}

/** Every tracked source line at most MAX_LINE characters (the formatter cannot split a long string or comment). */
function longestLine() {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => CODE.test(f) && !/(^|\/)(node_modules|out)\//.test(f));
  let output = '';
  for (const file of files) {
    let text;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // deleted in the work tree but still in the index: nothing to measure
    }
    text.split('\n').forEach((line, i) => {
      if (line.length > MAX_LINE) output += `${file}:${i + 1}: ${line.length} characters (at most ${MAX_LINE})\n`;
    });
  }
  return { name: 'line length', ok: output === '', output };
}

const results = await Promise.all([
  run('biome', 'biome', ['check', '--colors=off', '--error-on-warnings', '--max-diagnostics=50', '.']),
  run('tsc', 'tsc', ['-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', 'out/.tsbuildinfo']),
  longestLine(),
]);
const failed = results.filter((r) => !r.ok);
for (const r of failed) process.stderr.write(`── ${r.name}\n${r.output}`);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (failed.length > 0) {
  console.error(`lint: failed (${failed.map((r) => r.name).join(', ')}) in ${seconds}s`);
  process.exit(1);
}
console.log(`lint: biome, tsc and line length pass in ${seconds}s`);
