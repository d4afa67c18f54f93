// Releases the Environment of a runtime identity once its target is gone (removed or replaced) and nothing of it runs.
import type { ActivityEntry } from '../../../shared/api.js';
import { runtimeIdentity } from '../../../shared/targets.js';
import type { Core, CoreExtension } from '../core.js';
import { processManagerOf } from '../processes/processManager.js';

/** What keeps a retired identity alive: open panes, calls in flight, background processes or held work. */
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

/**
 * A Core extension. A removed or replaced target's old identity keeps its Environment while its
 * panes, background processes or calls still run (they stay inspectable and killable by identity);
 * the first sweep after the last of them ends releases it with reason `removed`. The new generation
 * never inherits any of it: sessions are keyed by identity.
 */
export const retireIdentities: CoreExtension = (core: Core) => {
  const inFlight = new Map<string, string>(); // activity id → identity
  let timer: NodeJS.Timeout | undefined;
  let sweeping = false;

  const sweep = async (): Promise<void> => {
    if (sweeping) return schedule();
    sweeping = true;
    try {
      core.targets.refresh();
      const live = new Set(core.targets.list(() => ({})).map((t) => runtimeIdentity(t.name, t.generation)));
      const openPanes = new Set(core.panes.list().filter((p) => p.status === 'open').map((p) => runtimeIdentity(p.execution_target, p.generation)));
      const processes = processManagerOf(core);
      const release = identitiesToRelease(core.sessions.identities(), live, {
        openPanes,
        inFlight: new Set(inFlight.values()),
        busy: (id) => processes?.busy(id) ?? false,
      });
      for (const id of release) await core.sessions.release(id, 'removed');
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

  const offEvents = core.onEvent((event, payload) => {
    if (event === 'activity') {
      const e = payload as ActivityEntry;
      if (e.status === 'running' && e.execution_target && e.generation) {
        inFlight.set(e.id, runtimeIdentity(e.execution_target, e.generation));
      } else if (e.status !== 'running' && inFlight.delete(e.id)) {
        schedule();
      }
    } else if (event === 'pane.exit' || event === 'processes.changed') {
      schedule();
    }
  });
  const offTargets = core.targets.onChange(schedule);
  const backstop = setInterval(schedule, BACKSTOP_MS);
  backstop.unref();
  core.onClose(() => {
    offEvents();
    offTargets();
    clearInterval(backstop);
    if (timer) clearTimeout(timer);
  });
};
