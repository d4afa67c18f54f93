// Every rule's own examples (STYLE §15), run by rule id: each `match` command gives a finding with that id, each
// `notMatch` command gives none; and every id a shell rule can give has examples.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCommandPolicy, type CommandPolicy } from './commandPolicy.js';
import { ruleIds, type RuleId } from './ruleIds.js';
import type { RuleExample } from './ruleKit.js';
import { mergeTables, remoteCliExamples, ruleExamples } from './rules/index.js';
import { scannerExamples } from './scanExamples.js';

let policy: CommandPolicy;
beforeAll(async () => {
  policy = await loadCommandPolicy({ profile: '/home/agent/.switchboard' });
});

const ctx = { home: '/home/agent', cwd: '/home/agent/project' };
const rulesOf = (command: string): string[] =>
  policy.classify({ kind: 'command', command }, ctx).reasons.map((r) => `${r.rule}: ${r.text}`);

/** Ids no shell command's rule gives: code analysis's own (tested in code/), and text the policy does not read. */
const notShellRules = new Set<RuleId>([
  'code.attr',
  'code.decoded',
  'code.dynamic',
  'code.import',
  'code.introspect',
  'code.native',
  'code.path',
  'code.pickle',
  'code.run',
  'code.unchecked',
  'code.write',
  'delete.walk',
  'remote.import',
  'write.tree',
  'parse.depth',
  'parse.too_large',
  'text.too_long',
  'refuse',
  // Given by the approval step (run.rewritten), or only with facts probed on the target (run.unchecked).
  'run.rewritten',
  'run.unchecked',
  // Not given as a rule id (a reason's text names shutil.rmtree).
  'shutil.rmtree',
  // Given only on an unsandboxed target (unsandboxedWrites.test.ts).
  'write.unknown',
]);

const byId = new Map<string, RuleExample[]>();
for (const file of [...ruleExamples, scannerExamples])
  for (const [id, ex] of Object.entries(file)) byId.set(id, [...(byId.get(id) ?? []), ex as RuleExample]);
const cases = [...byId].flatMap(([id, list]) =>
  list.flatMap((ex) => [
    ...ex.match.map((command) => [id, command, true] as const),
    ...(ex.notMatch ?? []).map((command) => [id, command, false] as const),
  ]),
);

describe('rule examples, by rule id', () => {
  it.each(cases)('%s: %j %s', (id, command, matches) => {
    const found = rulesOf(command);
    if (matches)
      expect(
        found.some((f) => f.startsWith(`${id}: `)),
        found.join(' | '),
      ).toBe(true);
    else expect(found.filter((f) => f.startsWith(`${id}: `))).toEqual([]);
  });
  it('covers every rule id a shell rule can give', () => {
    const missing = ruleIds.filter((id) => !notShellRules.has(id) && !byId.has(id));
    expect(missing).toEqual([]);
  });
});

describe('the remote CLI table, by CLI', () => {
  const rows = remoteCliExamples.flatMap(([cli, asks, quiet]) => [
    ...asks.map((command) => [cli, command, true] as const),
    ...quiet.map((command) => [cli, command, false] as const),
  ]);
  it.each(rows)('%s: %j asks: %s', (_cli, command, asks) => {
    const r = policy.classify({ kind: 'command', command }, ctx);
    expect(r.verdict !== 'safe', r.reasons.map((x) => x.text).join(' | ')).toBe(asks);
  });
});

describe('the merged tables', () => {
  it('fail on a command name two tables give a rule for, naming both', () => {
    expect(() => mergeTables({ writeRules: { vim: 1, tee: 2 }, escapeRules: { vim: 3 } })).toThrow(
      'two rules for vim: in writeRules and in escapeRules',
    );
    expect([...mergeTables({ a: { x: 1 }, b: { y: 2 } })]).toEqual([
      ['x', 1],
      ['y', 2],
    ]);
  });
});
