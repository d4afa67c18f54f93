// Benchmark (not a test): time to judge execute_code's Python with the approvals policy (syntax tree, imports,
// calls, paths), for agent scripts of a few sizes, against the bare tree-sitter parse of the same text.
// Usage: node bench/codePolicy.mjs [--rounds N]. Goal: a normal script (≈ 2 KB) judged well under 5 ms.
import { join } from 'node:path';
import { bundled, root } from './bundle.mjs';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 50;
const policyDir = join(root, 'src/main/core/approvals/policy');
const { codePolicy, codeParsers } = await bundled({
  codePolicy: join(policyDir, 'commandPolicy.ts'),
  codeParsers: join(policyDir, 'code/codeParsers.ts'),
});
const { loadCommandPolicy } = codePolicy;
const { loadCodeParsers } = codeParsers;

const t = performance.now();
const policy = await loadCommandPolicy({ profile: '/home/agent/.switchboard' });
const parsers = await loadCodeParsers();
const loadMs = performance.now() - t;

/** One function of an everyday agent script: files, json, a subprocess, a request, paths. */
const unit = (i) => `
def step_${i}(path, limit=${i}):
    """Reads a report, keeps the rows above the limit and writes them next to it."""
    with open(os.path.join('data', f'{path}_${i}.json')) as fh:
        rows = json.load(fh)
    kept = [r for r in rows if r.get('score', 0) > limit]
    out = Path('out') / f'report_${i}.json'
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(kept, indent=2))
    log = subprocess.run(['git', 'log', '-1', '--format=%h'], capture_output=True, text=True).stdout.strip()
    print('step ${i}', len(kept), log)
    return kept
`;
const head = 'import os, json, subprocess\nfrom pathlib import Path\nimport requests\n';
const script = (n) =>
  head +
  Array.from({ length: n }, (_, i) => unit(i)).join('') +
  Array.from({ length: n }, (_, i) => `step_${i}('run')\n`).join('');
const sizes = [3, 12, 48];
const ctx = { home: '/home/agent', cwd: '/home/agent/project' };

function time(fn) {
  for (let i = 0; i < 5; i++) fn();
  const each = [];
  for (let r = 0; r < rounds; r++) {
    const s = performance.now();
    fn();
    each.push(performance.now() - s);
  }
  each.sort((a, b) => a - b);
  // On a shared machine the spread is the scheduler's; the minimum is what the work costs.
  return { min: each[0], p50: each[Math.floor(each.length / 2)], p90: each[Math.floor(each.length * 0.9)] };
}

const f = (n) => `${n.toFixed(2)} ms`;
console.log(
  `code policy bench: ${rounds} rounds; Python and JavaScript grammars load ${loadMs.toFixed(0)} ms (with ` +
    `bash, once per process)`,
);
for (const n of sizes) {
  const code = script(n);
  const verdict = policy.classify({ kind: 'code', code, language: 'python' }, ctx).verdict;
  const base = time(() => parsers.parse(code, 'python').delete());
  const full = time(() => policy.classify({ kind: 'code', code, language: 'python' }, ctx));
  console.log(
    `  ${(code.length / 1024).toFixed(1).padStart(5)} KB (${code.split('\n').length} lines, ${verdict}): ` +
      `parse min ${f(base.min)} p50 ${f(base.p50)}  judge min ${f(full.min)} p50 ${f(full.p50)} ` +
      `p90 ${f(full.p90)}  (${(full.min / base.min).toFixed(1)}× the parse at min)`,
  );
}
