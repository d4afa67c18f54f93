// The sidebar's rows: every target with its live cwd and reachability (the Sessions' view of its identity).
import type { TargetInfo } from '../../../shared/targets.js';
import type { TargetTable } from '../registry/targetTable.js';
import type { Sessions } from '../sessions/sessions.js';

export function listTargets(deps: { targets: TargetTable; sessions: Sessions }): TargetInfo[] {
  deps.targets.refresh();
  return deps.targets.list((_name, identity) => ({ cwd: deps.sessions.knownCwd(identity), problem: deps.sessions.problem(identity) }));
}
