// The audit line of an approval decision that no tool call's own line carries (a host key, asked by a connection).
import type { PendingApproval } from '../../../shared/approvals.js';
import type { AuditRecord } from '../activity/index.js';
import { decidedBy, type Decided } from './approvalBroker.js';

/** The audit line of a decision no tool call's own line carries (a host key: asked by a connection, not a call). */
export function approvalAuditRecord(a: PendingApproval, d: Decided, time = new Date()): AuditRecord {
  return {
    time: time.toISOString(),
    kind: 'approval',
    client: decidedBy(d),
    approval_kind: a.kind,
    execution_target: a.execution_target,
    outcome: d.decision,
    scope: d.scope,
    by: decidedBy(d),
    ...(d.person ? { person: d.person } : {}),
    waited_ms: d.waited_ms,
    ...(d.reason ? { reason: d.reason } : {}),
    ...(a.host_key ? { fingerprint: a.host_key.fingerprint, host: `${a.host_key.host}:${a.host_key.port}` } : {}),
  };
}
