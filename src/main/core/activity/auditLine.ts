// One finished Activity entry as its audit.jsonl line: the same fields for a tool call and for a window's action.
import type { ActivityEntry } from '../../../shared/api.js';
import type { AuditRecord } from '../dispatch/audit.js';

export function auditLine(entry: ActivityEntry, kind: AuditRecord['kind']): AuditRecord {
  return {
    time: entry.time,
    kind,
    client: entry.client,
    ...(entry.person ? { person: entry.person } : {}),
    tool: entry.tool,
    execution_target: entry.execution_target,
    generation: entry.generation,
    args: entry.summary,
    outcome: entry.status,
    duration_ms: entry.duration_ms,
    ...(entry.error ? { error: entry.error } : {}),
    ...(entry.approval ? { approval: entry.approval.decision, approved_by: entry.approval.by } : {}),
  };
}
