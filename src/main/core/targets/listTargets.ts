// The sidebar's rows: every target with its live cwd, reachability and sandbox (the Sessions' view of its identity,
// then what the health checks last saw).
import type { TargetInfo } from '../../../shared/targets.js';
import type { TargetTable } from './targetTable.js';
import type { Sessions } from '../sessions/index.js';
import type { TargetHealth } from './targetHealth.js';

export function listTargets(deps: { targets: TargetTable; sessions: Sessions; health?: TargetHealth }): TargetInfo[] {
  deps.targets.refresh();
  return deps.targets.list((_name, identity) => {
    const live = deps.sessions.problem(identity);
    const seen = deps.health?.view(identity);
    // A call that just failed outranks an older probe that passed.
    const problem = live ?? seen?.problem;
    const health =
      seen && live && seen.health.status !== 'unreachable'
        ? { ...seen.health, status: 'unreachable' as const }
        : seen?.health;
    const sandbox = deps.sessions.sandbox(identity);
    return {
      cwd: deps.sessions.knownCwd(identity),
      ...(sandbox ? { sandbox } : {}),
      ...(problem ? { problem } : {}),
      ...(health ? { health } : {}),
      ...(seen?.cwdProblem ? { cwd_problem: seen.cwdProblem } : {}),
    };
  });
}
