// pane.*: interactive shells; the connection that opens or attaches a pane is the one its output is sent to.
import { SwitchboardError } from '../../../shared/errors.js';
import { methodCapability } from '../../../shared/api.js';
import { type AuditLog, whoActs } from '../activity/index.js';
import type { CallContext, Handlers } from '../platform/index.js';
import type { TargetTable } from '../targets/index.js';
import type { Panes } from './panes.js';

/**
 * Who opened a pane, as the transport knows the connection: its client, how the person was known, and its capability —
 * always a person's, since pane.open is a person's method and Core.invoke refused every other caller before this runs.
 */
function opener(ctx: CallContext) {
  return { ...whoActs(ctx), capability: methodCapability['pane.open'] };
}

export function paneMethods(deps: {
  targets: TargetTable;
  panes: Panes;
  keepSec: () => number;
  audit: Pick<AuditLog, 'write'>;
}) {
  const { targets, panes, audit } = deps;
  return {
    'pane.open': async ({ execution_target, cols, rows, keep, binary, cwd }, ctx) => {
      targets.refresh();
      const snapshot = targets.snapshot(execution_target);
      if (snapshot.state === 'draining') {
        throw new SwitchboardError(
          'target_draining',
          `target "${snapshot.name}" is draining; new panes are refused`,
          'pick another target',
        );
      }
      // One audit line when the pane opens and one when its shell ends; what is typed in it is never written.
      const who = opener(ctx);
      const where = { execution_target: snapshot.name, generation: snapshot.generation };
      let paneId = '';
      const info = await panes.open(
        snapshot,
        cols,
        rows,
        (id) => {
          paneId = id;
          ctx.connection.addPane(id, true, binary);
        },
        {
          ...(cwd ? { cwd } : {}),
          keepMs: keep ? deps.keepSec() * 1000 : 0,
          onEnd: (end) =>
            audit.write({
              time: new Date().toISOString(),
              kind: 'pane',
              ...who,
              action: 'close',
              ...where,
              pane_id: paneId,
              outcome: end.status,
              exit_code: end.exit_code,
              ...(end.reason ? { reason: end.reason } : {}),
            }),
          // A new shell after a dropped connection is a shell opened too: one line, as for the first.
          onReconnect: (attempt) =>
            audit.write({
              time: new Date().toISOString(),
              kind: 'pane',
              ...who,
              action: 'reconnect',
              ...where,
              pane_id: paneId,
              outcome: 'reconnected',
              attempt,
            }),
        },
      );
      audit.write({
        time: new Date().toISOString(),
        kind: 'pane',
        ...who,
        action: 'open',
        ...where,
        pane_id: info.pane_id,
        outcome: 'opened',
      });
      return info;
    },
    'pane.attach': async ({ pane_id, binary }, ctx) => {
      const info = panes.info(pane_id);
      ctx.connection.addPane(pane_id, false, binary);
      return info;
    },
    'pane.resume': async ({ pane_id, binary }, ctx) => {
      const resumed = panes.resume(pane_id);
      ctx.connection.addPane(pane_id, true, binary);
      return resumed;
    },
    'pane.write': async ({ pane_id, data }) => (panes.write(pane_id, data), {}),
    'pane.resize': async ({ pane_id, cols, rows }) => (panes.resize(pane_id, cols, rows), {}),
    'pane.ack': async ({ pane_id, chars }) => (panes.ack(pane_id, chars), {}),
    'pane.close': async ({ pane_id }, ctx) => {
      ctx.connection.removePane(pane_id);
      panes.close(pane_id);
      return {};
    },
    'pane.reconnect': async ({ pane_id, action }) => (panes.reconnect(pane_id, action), {}),
    'pane.clear': async ({ pane_id }) => (panes.clear(pane_id), {}),
    'pane.list': async () => panes.list(),
  } satisfies Partial<Handlers>;
}
