// pane.*: interactive shells; the connection that opens or attaches a pane is the one its output is sent to.
import { SwitchboardError } from '../../../shared/errors.js';
import type { Handlers } from '../handlers.js';
import type { TargetTable } from '../registry/targetTable.js';
import type { Panes } from './panes.js';

export function paneMethods(deps: { targets: TargetTable; panes: Panes; keepSec: () => number }) {
  const { targets, panes } = deps;
  return {
    'pane.open': async ({ execution_target, cols, rows, keep, binary }, ctx) => {
      targets.refresh();
      const snapshot = targets.snapshot(execution_target);
      if (snapshot.state === 'draining') {
        throw new SwitchboardError('target_draining', `target "${snapshot.name}" is draining; new panes are refused`, 'pick another target');
      }
      return panes.open(snapshot, cols, rows, (paneId) => ctx.connection.addPane(paneId, true, binary), { keepMs: keep ? deps.keepSec() * 1000 : 0 });
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
    'pane.list': async () => panes.list(),
  } satisfies Partial<Handlers>;
}
