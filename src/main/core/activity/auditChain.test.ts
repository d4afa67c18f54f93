// The audit log's hash chain: what AuditLog writes verifies, a Core restarted on the profile continues it, and each
// kind of tampering (an edited, deleted, inserted or cut line, a cut end) is found at its line.
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog, type AuditRecord } from './audit.js';
import {
  GENESIS,
  chainLine,
  headPath,
  lineHash,
  parseHead,
  verifyChain,
  withLost,
  type ChainReport,
} from './auditChain.js';
import { Core } from '../core.js';
import { localProvider } from '../backends/providers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'sb-audit-'));
  dirs.push(d);
  return d;
}

function record(i: number, outcome = 'ok'): AuditRecord {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    kind: 'approval',
    client: 'mcp',
    tool: 'terminal',
    args: `echo ${i}`,
    outcome,
  };
}

/** A log of `n` lines written by AuditLog (the 4th a denial), in batches as a busy Core writes them. */
async function writtenLog(n: number): Promise<string> {
  const home = tempDir();
  const log = new AuditLog(home);
  for (let i = 1; i <= n; i++) {
    log.write(record(i, i === 4 ? 'deny' : 'approve'));
    if (i % 3 === 0) await log.flush();
  }
  await log.close();
  return home;
}

function verify(home: string): ChainReport {
  const path = join(home, 'audit.jsonl');
  let head: ReturnType<typeof parseHead>;
  try {
    head = parseHead(readFileSync(headPath(path), 'utf8'));
  } catch {
    head = undefined;
  }
  return verifyChain(readFileSync(path), head);
}

function lines(home: string): string[] {
  return readFileSync(join(home, 'audit.jsonl'), 'utf8').split('\n').slice(0, -1);
}

function rewrite(home: string, next: string[], trailingNewline = true): void {
  writeFileSync(join(home, 'audit.jsonl'), next.join('\n') + (trailingNewline ? '\n' : ''));
}

describe('the audit chain', () => {
  it('each line carries its place and the hash of the line before; the head the last', async () => {
    const home = await writtenLog(8);
    const l = lines(home);
    expect(l).toHaveLength(8);
    const parsed = l.map((x) => JSON.parse(x) as { seq: number; prev: string; outcome: string });
    expect(parsed.map((p) => p.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parsed[0]!.prev).toBe(GENESIS);
    for (let i = 1; i < 8; i++) expect(parsed[i]!.prev).toBe(lineHash(l[i - 1]!));
    expect(parseHead(readFileSync(headPath(join(home, 'audit.jsonl')), 'utf8'))).toEqual({
      seq: 8,
      hash: lineHash(l[7]!),
    });
    expect(verify(home)).toEqual({ whole: true, lines: 8, unchained: 0, head: true });
  });

  it('a record cannot set its own place in the chain', () => {
    expect(chainLine(JSON.stringify({ a: 1 }), { seq: 3, prev: 'p' })).toBe('{"seq":3,"prev":"p","a":1}');
  });

  it.each([
    [
      'a flipped decision (deny → approve)',
      (l: string[]) => ((l[3] = l[3]!.replace('"deny"', '"approve"')), l),
      4,
      'edited',
    ],
    ['an edited first line', (l: string[]) => ((l[0] = l[0]!.replace('echo 1', 'echo X')), l), 1, 'edited'],
    [
      'an edited last line (the head catches it)',
      (l: string[]) => ((l[7] = l[7]!.replace('echo 8', 'echo X')), l),
      8,
      'edited',
    ],
    ['a line that is not JSON', (l: string[]) => ((l[2] = 'garbage'), l), 3, 'edited'],
    ['a deleted line', (l: string[]) => (l.splice(4, 1), l), 5, 'deleted'],
    ['two deleted lines', (l: string[]) => (l.splice(1, 2), l), 2, 'deleted'],
    ['the first line deleted', (l: string[]) => (l.splice(0, 1), l), 1, 'deleted'],
    ['an inserted plain line', (l: string[]) => (l.splice(5, 0, JSON.stringify(record(99))), l), 6, 'inserted'],
    [
      'an inserted line with a forged link',
      (l: string[]) => (l.splice(5, 0, chainLine(JSON.stringify(record(99)), { seq: 6, prev: lineHash(l[4]!) })), l),
      6,
      'inserted',
    ],
    ['a duplicated line', (l: string[]) => (l.splice(3, 0, l[2]!), l), 4, 'inserted'],
    ['the last two lines cut off', (l: string[]) => l.slice(0, 6), 7, 'truncated'],
  ] as const)('finds %s at its line', async (_what, tamper, line, how) => {
    const home = await writtenLog(8);
    rewrite(home, tamper([...lines(home)]));
    expect(verify(home).break).toMatchObject({ line, how });
  });

  it('finds a log cut inside a line', async () => {
    const home = await writtenLog(8);
    const text = readFileSync(join(home, 'audit.jsonl'), 'utf8');
    const cutAt = text.length - 30;
    writeFileSync(join(home, 'audit.jsonl'), text.slice(0, cutAt));
    expect(verify(home).break).toMatchObject({ line: 8, how: 'truncated' });
  });

  it('a log opened again continues its chain from the last line, read from the tail only', async () => {
    const home = await writtenLog(5);
    const again = new AuditLog(home);
    again.write(record(6));
    again.write(record(7));
    await again.close();
    const l = lines(home);
    expect(l.map((x) => (JSON.parse(x) as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(verify(home)).toMatchObject({ whole: true, lines: 7 });
  });

  it('continues after a last line longer than the tail it first reads', async () => {
    const home = await writtenLog(3);
    const first = new AuditLog(home);
    first.write({ ...record(4), args: 'x'.repeat(200_000) });
    await first.close();
    const again = new AuditLog(home);
    again.write(record(5));
    await again.close();
    expect(verify(home)).toMatchObject({ whole: true, lines: 5 });
  });

  it('a log cut before a Core starts stays broken: the chain goes on from the head, not over the gap', async () => {
    const home = await writtenLog(6);
    rewrite(home, lines(home).slice(0, 4));
    const again = new AuditLog(home);
    again.write(record(7));
    await again.close();
    expect(verify(home).break).toMatchObject({ line: 5, how: 'deleted', detail: '2 lines deleted before line 5' });
  });

  it(
    'a log kept before the chain existed: ' + 'its lines are counted as unchained and the chain starts after them',
    async () => {
      const home = tempDir();
      appendFileSync(join(home, 'audit.jsonl'), [record(1), record(2)].map((r) => JSON.stringify(r) + '\n').join(''));
      const log = new AuditLog(home);
      log.write(record(3));
      await log.close();
      expect(verify(home)).toEqual({ whole: true, lines: 3, unchained: 2, head: true });
    },
  );

  it('a Core restarted on the same profile continues the chain', async () => {
    const root = tempDir();
    // A HOME of its own for any shell the Core starts (a health probe).
    const savedHome = process.env.HOME;
    process.env.HOME = root;
    onTestFinished(() => void (process.env.HOME = savedHome));
    const home = join(root, 'home');
    const work = join(root, 'work');
    for (const d of [home, work]) mkdirSync(d);
    writeFileSync(
      join(home, 'config.yaml'),
      `terminal:\n  targets:\n    a: { backend: local, cwd: ${work} }\napprovals:\n  mode: ask\n`,
    );
    for (const run of [1, 2]) {
      const core = await new Core({ home, providers: [localProvider] }).start();
      // File tools need no shell; a hardline refusal writes an approval line as well.
      await core.callTool('write_file', { path: `run${run}.txt`, content: 'x' }, 'test');
      await core.callTool('read_file', { path: `run${run}.txt` }, 'test');
      await expect(core.callTool('write_file', { path: '../home/config.yaml', content: '' }, 'test')).rejects.toThrow(
        /Switchboard profile/,
      );
      await core.close();
    }
    const l = lines(home).map((x) => JSON.parse(x) as { seq: number; tool?: string; args?: string });
    expect(l.length).toBeGreaterThanOrEqual(6);
    expect(l.map((x) => x.seq)).toEqual(l.map((_, i) => i + 1));
    expect(l.some((x) => x.args?.includes('run2.txt'))).toBe(true);
    expect(verify(home)).toMatchObject({ whole: true, unchained: 0, head: true });
  });

  it(
    'lines lost on a full disk are a gap said by the next line (audit_lost), not a break; ' +
      'a deleted line still is one',
    () => {
      const first = chainLine(JSON.stringify(record(1)), { seq: 1, prev: GENESIS });
      const second = chainLine(withLost(JSON.stringify(record(2)), 3), { seq: 2, prev: lineHash(first) });
      const third = chainLine(withLost(JSON.stringify(record(3)), 2), { seq: 3, prev: lineHash(second) });
      expect(JSON.parse(second)).toMatchObject({ seq: 2, audit_lost: 3, args: 'echo 2' });
      const log = (lines: string[]): Buffer => Buffer.from(lines.map((l) => l + '\n').join(''));
      expect(verifyChain(log([first, second, third]), { seq: 3, hash: lineHash(third) })).toEqual({
        whole: true,
        lines: 3,
        unchained: 0,
        head: true,
        lost: 5,
      });
      expect(verifyChain(log([first, third]), { seq: 3, hash: lineHash(third) })).toMatchObject({
        whole: false,
        break: { line: 2, how: 'deleted' },
      });
      // The count is hashed with its line: changing it is an edit.
      expect(verifyChain(log([first, second.replace('"audit_lost":3', '"audit_lost":0'), third]))).toMatchObject({
        whole: false,
        break: { line: 2, how: 'edited' },
      });
      expect(withLost('{}', 1)).toBe('{"audit_lost":1}');
      expect(withLost('{"a":1}', 0)).toBe('{"a":1}');
    },
  );
});
