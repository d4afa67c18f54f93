// `switchboard audit verify` through the built CLI, with no Core: a whole chain exits 0, and an edited, deleted,
// inserted or truncated line exits 1 naming the first line where the chain breaks, on one line.
import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuditLog } from '../core/activity/index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const root = mkdtempSync(join(tmpdir(), 'sb-cli-audit-'));
// Each run is a fresh Node process; on a loaded shared machine one can take tens of seconds.
const slow = 400_000;

function sb(home: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(repo, 'bin/switchboard.js'), 'audit', 'verify', ...args], {
    env: { ...process.env, SWITCHBOARD_HOME: home },
    encoding: 'utf8',
    timeout: 150_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let original: string;

/** A profile holding a copy of the written log (and its head), its lines changed by `tamper`. */
function profile(name: string, tamper?: (lines: string[]) => string[]): string {
  const home = join(root, name);
  mkdirSync(home);
  copyFileSync(join(original, 'audit.jsonl.head'), join(home, 'audit.jsonl.head'));
  const lines = readFileSync(join(original, 'audit.jsonl'), 'utf8').split('\n').slice(0, -1);
  writeFileSync(join(home, 'audit.jsonl'), (tamper ? tamper(lines) : lines).map((l) => l + '\n').join(''));
  return home;
}

beforeAll(async () => {
  execFileSync(process.execPath, [join(repo, 'scripts/build.mjs'), 'node'], { cwd: repo, stdio: 'pipe' });
  original = join(root, 'original');
  mkdirSync(original);
  const log = new AuditLog(original);
  for (let i = 1; i <= 6; i++) {
    log.write({
      time: new Date().toISOString(),
      kind: 'approval',
      client: 'mcp',
      tool: 'terminal',
      args: `sudo step ${i}`,
      outcome: i === 3 ? 'deny' : 'approve',
      by: 'person',
    });
    await log.flush();
  }
  await log.close();
}, slow);

describe('switchboard audit verify', () => {
  it(
    'says a whole chain is whole on one line and exits 0, with no Core',
    () => {
      const home = profile('whole');
      expect(existsSync(join(home, 'core.json'))).toBe(false);
      const r = sb(home);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toBe(`${join(home, 'audit.jsonl')}: the chain is whole, 6 lines\n`);
      expect(JSON.parse(sb(home, '--json').stdout)).toEqual({
        file: join(home, 'audit.jsonl'),
        whole: true,
        lines: 6,
        unchained: 0,
        head: true,
      });
    },
    slow,
  );

  it.each([
    [
      'a denial flipped to an approval',
      (l: string[]) => ((l[2] = l[2]!.replace('"deny"', '"approve"')), l),
      3,
      'edited',
    ],
    ['a deleted line', (l: string[]) => (l.splice(3, 1), l), 4, 'deleted'],
    ['an inserted line', (l: string[]) => (l.splice(2, 0, l[1]!.replace('step 2', 'step 2b')), l), 3, 'inserted'],
    ['lines cut from the end', (l: string[]) => l.slice(0, 4), 5, 'truncated'],
  ] as const)(
    'finds %s: exit 1, the line and how',
    (what, tamper, line, how) => {
      const home = profile(what.replace(/\W+/g, '-'), tamper);
      const r = sb(home);
      expect(r.code).toBe(1);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toContain(`broken at line ${line} (${how})`);
      const doc = JSON.parse(sb(home, '--json').stdout) as { whole: boolean; break: { line: number; how: string } };
      expect(doc).toMatchObject({ whole: false, break: { line, how } });
    },
    slow,
  );

  it(
    'checks another file with --file, and a log cut inside a line',
    () => {
      const other = join(root, 'elsewhere.jsonl');
      const text = readFileSync(join(original, 'audit.jsonl'), 'utf8');
      writeFileSync(other, text.slice(0, text.length - 20));
      const r = sb(join(root, 'none'), '--file', other);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('broken at line 6 (truncated)');
      const missing = sb(join(root, 'none'), '--file', join(root, 'nope.jsonl'));
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    },
    slow,
  );
});
