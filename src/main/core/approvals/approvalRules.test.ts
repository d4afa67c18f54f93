import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalRules, readRules } from './approvalRules.js';

const dirs: string[] = [];
function home(): string {
  const d = mkdtempSync(join(tmpdir(), 'sb-rules-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const key = { target: 'a', identity: 'a#g1', tool: 'terminal', pattern: 'sudo true' };

describe('ApprovalRules', () => {
  it('session rules match one runtime identity; always rules one target name, across generations', () => {
    const r = new ApprovalRules(home());
    r.addSession(key);
    expect(r.match(key)).toBe('session');
    expect(r.match({ ...key, identity: 'a#g2' })).toBeUndefined();
    expect(r.match({ ...key, pattern: 'sudo false' })).toBeUndefined();
    expect(r.match({ ...key, tool: 'execute_code' })).toBeUndefined();
    r.addAlways({ ...key, pattern: 'git push --force' }, 'ui');
    expect(r.match({ ...key, identity: 'a#g2', pattern: 'git push --force' })).toBe('always');
    expect(r.match({ ...key, target: 'b', identity: 'b#g1', pattern: 'git push --force' })).toBeUndefined();
  });

  it('writes approvals.json atomically with mode 0600, sees edits by others, and reports changes', () => {
    const h = home();
    const r = new ApprovalRules(h);
    const seen: number[] = [];
    r.onChange((rules) => seen.push(rules.length));
    const rule = r.addAlways(key, 'cli');
    expect(r.addAlways(key, 'ui').id).toBe(rule.id);
    expect(statSync(join(h, 'approvals.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(h, 'approvals.json'), 'utf8'))).toEqual({ version: 1, rules: [rule] });
    // Another Core (or a person) empties the file: seen on the next look.
    writeFileSync(join(h, 'approvals.json'), JSON.stringify({ version: 1, rules: [] }));
    expect(r.list()).toEqual([]);
    expect(seen).toEqual([1, 0]);
    expect(() => r.revoke('nope')).toThrow(/no approval rule nope/);
  });

  const malformed: Array<[string, string, RegExp]> = [
    ['not JSON', '{', /not valid JSON/],
    ['wrong version', '{"version":2,"rules":[]}', /malformed at version/],
    ['a rule without a pattern', '{"version":1,"rules":[{"id":"x","execution_target":"a","tool":"terminal","created_at":"t","created_by":"ui"}]}', /malformed at rules\.0\.pattern/],
  ];
  for (const [name, text, problem] of malformed) {
    it(`a malformed file (${name}) gives no rules and one problem line, and is never overwritten`, () => {
      const h = home();
      writeFileSync(join(h, 'approvals.json'), text);
      const r = new ApprovalRules(h);
      expect(r.list()).toEqual([]);
      expect(r.problem()).toMatch(problem);
      expect(r.problem()).not.toMatch(/\n/);
      expect(() => r.addAlways(key, 'ui')).toThrow(/approvals\.json/);
      expect(readFileSync(join(h, 'approvals.json'), 'utf8')).toBe(text);
    });
  }

  it('no file is no rules and no problem', () => {
    expect(readRules(join(home(), 'approvals.json'))).toEqual({ rules: [] });
  });
});
