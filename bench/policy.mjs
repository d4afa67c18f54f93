// Benchmark (not a test): time to classify a command with the approvals policy, over a long mixed list
// (the hardline, dangerous and everyday tables), against the bare tree-sitter parse as the baseline.
// Usage: node bench/policy.mjs [--rounds N] [--against REV]. Goal: well under 1 ms per command.
// --against REV: the same commands classified by the policy of another commit (a git revision), in this process, the
// two taking turns round by round (so the machine's drift falls on both alike): what a change costs per command.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundled, root } from './bundle.mjs';

const option = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(option('--rounds')) || 20;
const against = option('--against');
const policyDir = join(root, 'src/main/core/approvals/policy');
const modules = await bundled({
  policy: join(policyDir, 'commandPolicy.ts'),
  cases: join(policyDir, 'policyCases.ts'),
  parser: join(policyDir, 'shellParser.ts'),
});
const { loadCommandPolicy } = modules.policy;
const { loadShellParser } = modules.parser;
const { hardline, dangerous, safe } = modules.cases;

const t = performance.now();
const policy = await loadCommandPolicy();
const parser = await loadShellParser();
const loadMs = performance.now() - t;
const commands = [...hardline.map((c) => c[0]), ...dangerous.map((c) => c[0]), ...safe];
const ctx = { home: '/home/agent', cwd: '/home/agent/project' };

function time(fn) {
  for (const c of commands) fn(c); // warm up
  const each = [];
  for (let r = 0; r < rounds; r++)
    for (const c of commands) {
      const s = performance.now();
      fn(c);
      each.push(performance.now() - s);
    }
  each.sort((a, b) => a - b);
  const mean = each.reduce((a, b) => a + b, 0) / each.length;
  // The slowest 1 % are the scheduler and the GC on a shared machine, not the classifier: shown, not averaged.
  const kept = each.slice(0, Math.floor(each.length * 0.99));
  const trimmed = kept.reduce((a, b) => a + b, 0) / kept.length;
  return {
    mean,
    trimmed,
    p50: each[Math.floor(each.length / 2)],
    p99: each[Math.floor(each.length * 0.99)],
    max: each[each.length - 1],
  };
}

const base = time((c) => parser.parse(c).delete());
const full = time((c) => policy.classify({ kind: 'command', command: c }, ctx));
const f = (n) => `${(n * 1000).toFixed(0)} µs`;
console.log(
  `policy bench: ${commands.length} commands × ${rounds} rounds; grammar load ${loadMs.toFixed(0)} ms (once ` +
    `per process)`,
);
console.log(
  `  parse only (baseline): mean ${f(base.mean)}  trimmed mean ${f(base.trimmed)}  p50 ${f(base.p50)}  ` +
    `p99 ${f(base.p99)}  max ${f(base.max)}`,
);
console.log(
  `  classify:              mean ${f(full.mean)}  trimmed mean ${f(full.trimmed)}  p50 ${f(full.p50)}  ` +
    `p99 ${f(full.p99)}  max ${f(full.max)}  (${(full.p50 / base.p50).toFixed(1)}× the parse at p50)`,
);
console.log(`  goal: well under 1 ms per command (trimmed mean) — ${full.trimmed < 1 ? 'met' : 'NOT met'}`);

if (against) await compare(against);

/** Classifies the commands with this tree's policy and REV's, round about, and prints both medians. */
async function compare(rev) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-policy-'));
  const git = (...args) => execFileSync('git', ['-C', root, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  git('worktree', 'add', '--detach', dir, rev);
  try {
    const then = await bundled({ against: join(dir, 'src/main/core/approvals/policy/commandPolicy.ts') });
    const old = await then.against.loadCommandPolicy();
    const pass = (p) => {
      const each = [];
      for (const c of commands) {
        const s = performance.now();
        p.classify({ kind: 'command', command: c }, ctx);
        each.push(performance.now() - s);
      }
      return each;
    };
    pass(old);
    pass(policy);
    const a = [];
    const b = [];
    for (let r = 0; r < rounds; r++) {
      // Who goes first alternates too: neither always follows the other's garbage.
      const oldFirst = r % 2 === 1;
      if (oldFirst) a.push(...pass(old));
      b.push(...pass(policy));
      if (!oldFirst) a.push(...pass(old));
    }
    const p50 = (v) => v.sort((x, y) => x - y)[v.length >> 1];
    const [was, now] = [p50(a), p50(b)];
    console.log(
      `  against ${rev}: classify p50 ${f(was)} then, ${f(now)} now (${now >= was ? '+' : ''}` +
        `${((now / was - 1) * 100).toFixed(1)} %)`,
    );
  } finally {
    git('worktree', 'remove', '--force', dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
