// `npm run lint`: Biome (format and lint, nothing written), the type checker, the longest line, and ShellCheck on the
// shell programs (awk's own parser on the awk ones). Fast enough to run before every commit; `npm test` runs it first.
// Exits non-zero with one closing line naming what failed.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

/** The repository's files (tracked, or new and not ignored) whose names match `pattern`. */
function filesMatching(pattern) {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => pattern.test(f) && !/(^|\/)(node_modules|out)\//.test(f) && existsSync(join(root, f)));
}

/**
 * ShellCheck on every shell program: the .sh files (each says its shell by a `#!` line or a `# shellcheck shell=`
 * directive; one without either fails) and .ci/run.
 */
function shellcheck() {
  const files = [...filesMatching(/\.sh$/), '.ci/run'].filter((f) => existsSync(join(root, f)));
  return new Promise((resolve) => {
    const child = spawn('shellcheck', ['--format=gcc', '--external-sources', '--source-path=SCRIPTDIR', ...files], {
      cwd: root,
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => {
      const why =
        e.code === 'ENOENT'
          ? 'is not installed: apt-get install shellcheck (scripts/install-test-deps.sh does)'
          : e.message;
      resolve({ name: 'shellcheck', ok: false, output: `shellcheck ${why}\n` });
    });
    child.on('close', (code) => resolve({ name: 'shellcheck', ok: code === 0, output }));
  });
}

/** The awk programs parse (awk runs each on no input; what it says on stderr is a syntax error). */
function awkSyntax() {
  let output = '';
  for (const file of filesMatching(/\.awk$/)) {
    try {
      execFileSync('awk', ['-f', file, '/dev/null'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      // A program may exit non-zero on no input; only what awk says is a finding.
      const said = String(e.stderr ?? '');
      if (said !== '' || e.status === null) output += `${file}: ${said || e.message}\n`;
    }
  }
  return { name: 'awk', ok: output === '', output };
}

const results = await Promise.all([
  run('biome', 'biome', ['check', '--colors=off', '--error-on-warnings', '--max-diagnostics=50', '.']),
  run('tsc', 'tsc', ['-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', 'out/.tsbuildinfo']),
  longestLine(),
  shellcheck(),
  awkSyntax(),
]);
const failed = results.filter((r) => !r.ok);
for (const r of failed) process.stderr.write(`── ${r.name}\n${r.output}`);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (failed.length > 0) {
  console.error(`lint: failed (${failed.map((r) => r.name).join(', ')}) in ${seconds}s`);
  process.exit(1);
}
console.log(`lint: biome, tsc, line length, shellcheck and awk pass in ${seconds}s`);
