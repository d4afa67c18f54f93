// The audit line of one place swept for what a crashed Core run (or a cut-off call) left behind.
import type { AuditRecord } from '../activity/index.js';
import type { SweepReport } from './markedEnvironment.js';

/** The audit line of one place swept for what a crashed run (or a cut-off call) left; none when there is no news. */
export function sweepAuditRecord(r: SweepReport, time = new Date()): AuditRecord | undefined {
  // A cut-off call that had ended by itself leaves nothing to report.
  if (r.why === 'cut off' && r.found === 0 && !r.problem) return undefined;
  return {
    time: time.toISOString(),
    kind: 'sweep',
    client: 'core',
    execution_target: r.identity,
    outcome: r.problem ? 'error' : r.found > 0 ? 'ended' : 'none',
    count: r.found,
    ...(r.problem ? { error: r.problem } : {}),
  };
}
