import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { specFingerprint } from '../registry/index.js';
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

const specA = specFingerprint({ backend: 'local', cwd: '/a' });
const specB = specFingerprint({ backend: 'local', cwd: '/b' });
const key = { target: 'a', identity: 'a#g1', fingerprint: specA, tool: 'terminal', pattern: 'sudo true' };

describe('ApprovalRules', () => {
  it(
    'session rules match one runtime identity with one spec; always rules one target name with one spec, ' +
      'across generations',
    () => {
      const r = new ApprovalRules(home());
      r.addSession(key);
      expect(r.match(key)).toBe('session');
      expect(r.match({ ...key, identity: 'a#g2' })).toBeUndefined();
      // The same generation registered again with another spec (a registry edited by hand) is not what was approved.
      expect(r.match({ ...key, fingerprint: specB })).toBeUndefined();
      expect(r.match({ ...key, pattern: 'sudo false' })).toBeUndefined();
      expect(r.match({ ...key, tool: 'execute_code' })).toBeUndefined();
      r.addAlways({ ...key, pattern: 'git push --force' }, 'ui');
      expect(r.match({ ...key, identity: 'a#g2', pattern: 'git push --force' })).toBe('always');
      expect(r.match({ ...key, identity: 'a#g2', fingerprint: specB, pattern: 'git push --force' })).toBeUndefined();
      expect(r.match({ ...key, target: 'b', identity: 'b#g1', pattern: 'git push --force' })).toBeUndefined();
    },
  );

  it(
    'a command with a secret is kept redacted and matched by a salted hash: ' + 'approvals.json never holds the secret',
    () => {
      const h = home();
      const r = new ApprovalRules(h, () => specA);
      const pattern = 'mysql -u root -pS3cretPw0 -e drop';
      const rule = r.addAlways({ ...key, pattern }, 'ui');
      expect(rule.pattern).toBe('mysql -u root -p[redacted] -e drop');
      expect(rule.pattern_hash).toMatch(/^scrypt:[0-9a-f]{32}:[0-9a-f]{64}$/);
      expect(readFileSync(join(h, 'approvals.json'), 'utf8')).not.toContain('S3cretPw0');
      // Read back by another Core: the same command matches, another password or the redacted text itself does not.
      const again = new ApprovalRules(h, () => specA);
      expect(again.match({ ...key, pattern })).toBe('always');
      expect(again.match({ ...key, pattern: 'mysql -u root -pOtherPw1 -e drop' })).toBeUndefined();
      expect(again.match({ ...key, pattern: rule.pattern })).toBeUndefined();
      expect(again.addAlways({ ...key, pattern }, 'ui').id).toBe(rule.id);
    },
  );

  it(
    'an always rule is stale while its target has another spec or is gone; ' +
      'one without a fingerprint matches nothing and is stale',
    () => {
      const h = home();
      const now = new Map([['a', specA]]);
      const r = new ApprovalRules(h, (t) => now.get(t));
      const seen: boolean[][] = [];
      r.onChange((rules) => seen.push(rules.map((x) => x.stale ?? false)));
      const rule = r.addAlways(key, 'ui');
      expect(rule.spec_fingerprint).toBe(specA);
      expect(r.list()).toEqual([{ ...rule, stale: false }]);
      now.set('a', specB);
      r.targetsChanged();
      expect(r.list()[0]?.stale).toBe(true);
      r.targetsChanged();
      now.delete('a');
      r.targetsChanged();
      expect(r.list()[0]?.stale).toBe(true);
      expect(seen).toEqual([[false], [true]]);
      // `stale` is shown, never stored.
      expect(readFileSync(join(h, 'approvals.json'), 'utf8')).not.toContain('stale');

      const old = {
        id: 'old1',
        execution_target: 'a',
        tool: 'terminal',
        pattern: 'sudo true',
        created_at: 't',
        created_by: 'ui',
      };
      writeFileSync(join(h, 'approvals.json'), JSON.stringify({ version: 1, rules: [old] }));
      now.set('a', specA);
      expect(r.match(key)).toBeUndefined();
      expect(r.list()).toEqual([{ ...old, stale: true }]);
    },
  );

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
    [
      'a rule without a pattern',
      '{"version":1,"rules":[{"id":"x","execution_target":"a","tool":"terminal","created_at":"t","created_by":"ui"}]}',
      /malformed at rules\.0\.pattern/,
    ],
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
