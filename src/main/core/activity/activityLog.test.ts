// The Activity feed keeps one entry per call, updated in place, the newest 500.
import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../shared/api.js';
import { ActivityLog } from './activityLog.js';

const entry = (id: string, status: ActivityEntry['status'] = 'running'): ActivityEntry => ({
  id,
  time: '2026-01-01T00:00:00.000Z',
  client: 'test',
  tool: 'terminal',
  summary: id,
  status,
});

describe('ActivityLog', () => {
  it('updates a call in place, wherever it is among the kept ones, and tells each change', () => {
    const told: string[] = [];
    const log = new ActivityLog((e) => told.push(`${e.id}:${e.status}`));
    for (const id of ['a', 'b', 'c']) log.record(entry(id));
    log.record(entry('a', 'ok'));
    log.record(entry('c', 'error'));
    expect(log.list().map((e) => `${e.id}:${e.status}`)).toEqual(['a:ok', 'b:running', 'c:error']);
    expect(told).toEqual(['a:running', 'b:running', 'c:running', 'a:ok', 'c:error']);
  });

  it('keeps the newest 500; an update of one dropped comes back as new', () => {
    const log = new ActivityLog(() => undefined);
    for (let i = 0; i < 502; i++) log.record(entry(`e${i}`));
    expect(log.list(1000)).toHaveLength(500);
    expect(log.list(1)[0]?.id).toBe('e501');
    expect(log.list(1000)[0]?.id).toBe('e2');
    log.record(entry('e0', 'ok'));
    expect(log.list(1)[0]).toMatchObject({ id: 'e0', status: 'ok' });
    expect(log.list(1000)[0]?.id).toBe('e3');
  });
});
