// One finished Activity entry as its audit.jsonl line (the same fields for a tool call and for a window's action), and
// back: the entries a Core that starts again shows in Activity are read from the log's last lines.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ActivityEntry } from '../../../shared/api.js';
import type { AuditRecord } from './audit.js';

export function auditLine(entry: ActivityEntry, kind: AuditRecord['kind']): AuditRecord {
  return {
    time: entry.time,
    kind,
    // The entry's id: a Core started again reads the line back into Activity as the same entry a window still shows.
    call_id: entry.id,
    client: entry.client,
    ...(entry.person ? { person: entry.person } : {}),
    tool: entry.tool,
    execution_target: entry.execution_target,
    generation: entry.generation,
    args: entry.summary,
    outcome: entry.status,
    duration_ms: entry.duration_ms,
    ...(entry.exit_code !== undefined ? { exit_code: entry.exit_code } : {}),
    ...(entry.error ? { error: entry.error } : {}),
    ...(entry.approval
      ? {
          approval: entry.approval.decision,
          approved_by: entry.approval.by,
          ...(entry.approval.scope ? { approval_scope: entry.approval.scope } : {}),
          ...(entry.approval.waited_ms !== undefined ? { approval_waited_ms: entry.approval.waited_ms } : {}),
        }
      : {}),
  };
}

/** How much of audit.jsonl's end a starting Core reads back into Activity: its last calls, not a log of months. */
const RECENT_BYTES = 2 * 1024 * 1024;
const outcomes: ReadonlySet<string> = new Set(['ok', 'error', 'denied', 'cancelled']);
const decisions: ReadonlySet<string> = new Set(['approve', 'deny', 'refuse']);

/** The Activity entry an audit line of a finished call or a window's action was written from; undefined for others. */
export function entryOfAuditLine(line: Record<string, unknown>): ActivityEntry | undefined {
  if (line.kind !== 'dispatch' && line.kind !== 'action') return undefined;
  if (typeof line.outcome !== 'string' || !outcomes.has(line.outcome)) return undefined;
  const text = (k: string): string | undefined => (typeof line[k] === 'string' ? (line[k] as string) : undefined);
  const num = (k: string): number | undefined => (typeof line[k] === 'number' ? (line[k] as number) : undefined);
  const decision = text('approval');
  const candidate = {
    // The entry's own id; a line written before lines carried it, by its place in the chain.
    id: text('call_id') ?? `audit-${num('seq') ?? text('time')}`,
    time: text('time'),
    client: text('client'),
    tool: text('tool'),
    ...(text('execution_target') ? { execution_target: text('execution_target') } : {}),
    ...(text('generation') ? { generation: text('generation') } : {}),
    summary: text('args') ?? '',
    status: line.outcome,
    ...(num('duration_ms') !== undefined ? { duration_ms: num('duration_ms') } : {}),
    ...(text('error') ? { error: text('error') } : {}),
    ...(num('exit_code') !== undefined || line.exit_code === null ? { exit_code: line.exit_code } : {}),
    ...(decision && decisions.has(decision)
      ? {
          approval: {
            decision,
            by: text('approved_by') ?? 'unknown',
            ...(text('approval_scope') ? { scope: text('approval_scope') } : {}),
            ...(num('approval_waited_ms') !== undefined ? { waited_ms: num('approval_waited_ms') } : {}),
          },
        }
      : {}),
  };
  const parsed = ActivityEntry.safeParse(candidate);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The newest `limit` Activity entries in the audit log at `path` (read from its last 2 MiB), oldest first: what a Core
 * that starts again shows, so Activity is not empty after a restart. A missing or unreadable log is no entries.
 */
export function recentActivity(path: string, limit: number): ActivityEntry[] {
  let text: string;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const start = Math.max(0, size - RECENT_BYTES);
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      text = buf.toString('utf8');
      // A read that began inside a line leaves that line's end out.
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      closeSync(fd);
    }
  } catch {
    // no audit log yet (a new profile), or one this Core cannot read: Activity starts empty
    return [];
  }
  const entries: ActivityEntry[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      // a line cut off by a crash: `audit verify` reports it; Activity skips it
      continue;
    }
    const entry = line && typeof line === 'object' ? entryOfAuditLine(line as Record<string, unknown>) : undefined;
    if (entry) entries.push(entry);
  }
  return entries.slice(-limit);
}
