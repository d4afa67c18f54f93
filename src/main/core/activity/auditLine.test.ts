// Activity entries and their audit lines, both ways: what a Core writes for a finished call is what the next Core
// reads back into Activity; lines of other kinds, cut lines and a missing log give nothing.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../shared/api.js';
import { Core } from '../core.js';
import { auditLine, entryOfAuditLine, recentActivity } from './auditLine.js';

const root = mkdtempSync(join(tmpdir(), 'sb-audit-activity-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const done: ActivityEntry = {
  id: 'x',
  time: '2025-01-02T03:04:05.000Z',
  client: 'mcp',
  tool: 'terminal',
  execution_target: 'box',
  generation: 'g1',
  summary: 'make test',
  status: 'ok',
  duration_ms: 812,
  exit_code: 2,
  approval: { decision: 'approve', scope: 'session', by: 'ui', waited_ms: 4200 },
};

describe('entryOfAuditLine', () => {
  it.each<[string, Record<string, unknown>, Partial<ActivityEntry> | undefined]>([
    ['a finished call comes back as it was shown', { seq: 7, prev: 'p', ...auditLine(done, 'dispatch') }, done],
    [
      'a line written before lines carried the id is named by its place in the chain',
      { seq: 7, ...auditLine(done, 'dispatch'), call_id: undefined },
      { ...done, id: 'audit-7' },
    ],
    [
      "a window's action",
      { seq: 8, ...auditLine({ ...done, client: 'ui', tool: 'processes.kill', exit_code: undefined }, 'action') },
      { tool: 'processes.kill', client: 'ui', status: 'ok' },
    ],
    ['an approval decision is not a call', { seq: 9, kind: 'approval', client: 'ui', outcome: 'approve' }, undefined],
    ['a pane line is not a call', { seq: 10, kind: 'pane', client: 'ui', outcome: 'opened' }, undefined],
    [
      'a running outcome never reached the log',
      { seq: 11, ...auditLine(done, 'dispatch'), outcome: 'running' },
      undefined,
    ],
    ['a client the feed does not know', { seq: 12, ...auditLine(done, 'dispatch'), client: 'robot' }, undefined],
    ['a line without a time', { seq: 13, ...auditLine(done, 'dispatch'), time: undefined }, undefined],
  ])('%s', (_what, line, expected) => {
    const entry = entryOfAuditLine(line);
    if (expected === undefined) expect(entry).toBeUndefined();
    else expect(entry).toMatchObject(expected);
  });
});

describe('recentActivity', () => {
  it('reads the last entries of the log, skipping other lines and a line cut off by a crash', () => {
    const path = join(root, 'audit.jsonl');
    const lines = [
      { seq: 1, ...auditLine({ ...done, summary: 'first' }, 'dispatch') },
      { seq: 2, kind: 'approval', client: 'ui', outcome: 'approve' },
      { seq: 3, ...auditLine({ ...done, summary: 'second' }, 'dispatch') },
      { seq: 4, ...auditLine({ ...done, summary: 'third', status: 'error', error: 'boom' }, 'dispatch') },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    appendFileSync(path, '{"seq":5,"kind":"dispatch","tim');
    expect(recentActivity(path, 10).map((e) => e.summary)).toEqual(['first', 'second', 'third']);
    expect(recentActivity(path, 2).map((e) => [e.summary, e.status])).toEqual([
      ['second', 'ok'],
      ['third', 'error'],
    ]);
    expect(recentActivity(join(root, 'none.jsonl'), 10)).toEqual([]);
  });

  it('a Core started again on the profile shows the calls of the one before in Activity', async () => {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    a: { backend: local, cwd: ${root} }\n`);
    const first = await new Core({ home }).start();
    await first.callTool('terminal', { command: 'echo one', execution_target: 'a' }, 'cli');
    await first.callTool('terminal', { command: 'exit 2', execution_target: 'a' }, 'mcp');
    const before = first.activity.list();
    await first.close();

    const second = await new Core({ home }).start();
    try {
      const after = second.activity.list();
      // The same entries, ids and all: a window that still shows the old Core's entries does not get them twice.
      expect(after.map((e) => [e.id, e.tool, e.client, e.summary, e.status, e.exit_code])).toEqual(
        before.map((e) => [e.id, e.tool, e.client, e.summary, e.status, e.exit_code]),
      );
      expect(after.at(-1)).toMatchObject({ summary: 'exit 2', status: 'ok', exit_code: 2, execution_target: 'a' });
      // New calls follow them.
      await second.callTool('terminal', { command: 'echo three', execution_target: 'a' }, 'cli');
      expect(second.activity.list().map((e) => e.summary)).toEqual(['echo one', 'exit 2', 'echo three']);
    } finally {
      await second.close();
    }
  });
});
