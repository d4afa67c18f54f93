// Releases the Environment of a runtime identity once its target is gone (removed or replaced) and nothing of it runs.
import { runtimeIdentity } from '../../shared/targets.js';
import type { Panes } from './panes/index.js';
import type { ProcessManager } from './processes/index.js';
import type { IdentityHolds, Sessions } from './sessions/index.js';
import type { TargetTable } from './targets/index.js';

/** What keeps a retired identity alive: open panes, holds (calls in flight, held work) or background processes. */
export interface IdentityUse {
  openPanes: ReadonlySet<string>;
  inFlight: ReadonlySet<string>;
  busy: (identity: string) => boolean;
}

/** Pure: the identities with live state that no current target has and nothing uses any more. */
export function identitiesToRelease(held: readonly string[], live: ReadonlySet<string>, use: IdentityUse): string[] {
  return held.filter((id) => !live.has(id) && !use.openPanes.has(id) && !use.inFlight.has(id) && !use.busy(id));
}

const BACKSTOP_MS = 30_000;

export interface RetireDeps {
  targets: TargetTable;
  sessions: Sessions;
  panes: Panes;
  holds: IdentityHolds;
  processes: ProcessManager;
}

/**
 * A removed or replaced target's old identity keeps its Environment while its panes, background processes or
 * calls still run (they stay inspectable and killable by identity); the first sweep after the last hold is given
 * back releases it with reason `removed`. The new generation never inherits any of it: sessions are keyed by
 * identity. The Core calls `schedule` when targets, holds or processes change.
 */
export function retireIdentities(deps: RetireDeps): { schedule(): void; close(): void } {
  let timer: NodeJS.Timeout | undefined;
  let sweeping = false;

  const sweep = async (): Promise<void> => {
    if (sweeping) return schedule();
    sweeping = true;
    try {
      deps.targets.refresh();
      const live = new Set(deps.targets.list(() => ({})).map((t) => runtimeIdentity(t.name, t.generation)));
      const openPanes = new Set(
        deps.panes
          .list()
          .filter((p) => p.status === 'open' || p.status === 'reconnecting')
          .map((p) => runtimeIdentity(p.execution_target, p.generation)),
      );
      const release = identitiesToRelease(deps.sessions.identities(), live, {
        openPanes,
        inFlight: deps.holds.identities(),
        busy: (id) => deps.processes.busy(id),
      });
      for (const id of release) await deps.sessions.release(id, 'removed');
    } catch {
      /* a sweep is best effort; the next trigger or the backstop tries again */
    } finally {
      sweeping = false;
    }
  };

  function schedule(): void {
    timer ??= setTimeout(() => {
      timer = undefined;
      void sweep();
    }, 50);
  }

  const offTargets = deps.targets.onChange(schedule);
  const offHolds = deps.holds.onRelease(schedule);
  const backstop = setInterval(schedule, BACKSTOP_MS);
  backstop.unref();
  return {
    schedule,
    close: () => {
      offTargets();
      offHolds();
      clearInterval(backstop);
      if (timer) clearTimeout(timer);
    },
  };
}
