// Always-allow rules (approvals.json): which command patterns never ask on which target, each revocable here.
import { useEffect } from 'react';
import type { ApprovalRule } from '../../../shared/approvals.js';
import { call } from '../../client/core.js';
import { useApprovals } from '../../store/approvals.js';
import { useDialogs } from '../../store/dialogs.js';
import { useToasts } from '../../store/toasts.js';
import { clockTime } from '../../format.js';
import { Modal } from './Modal.js';
import { DialogTable, DoneActions } from './DialogTable.js';

function revoke(r: ApprovalRule): void {
  void call('approvals.revoke', { id: r.id }).then((ok) => {
    if (!ok) return;
    useToasts
      .getState()
      .push({ kind: 'info', message: `Rule for "${r.pattern}" on ${r.execution_target} revoked; it asks again` });
    // The Core announces the new list too; reading it here keeps the dialog right even if the event is late.
    void call('approvals.rules', {}).then((list) => list && useApprovals.getState().setRules(list));
  });
}

/** Today's rules by time, older ones by date. */
function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return d.toDateString() === new Date().toDateString() ? clockTime(iso) : d.toLocaleDateString();
}

export function ApprovalRulesDialog() {
  const rules = useApprovals((s) => s.rules);
  const close = (): void => useDialogs.getState().setRulesOpen(false);
  useEffect(() => {
    void call('approvals.rules', {}).then((list) => list && useApprovals.getState().setRules(list));
  }, []);
  return (
    <Modal title="Approval rules" onCancel={close} width={720} describedBy="rules-note">
      <p className="form__note" id="rules-note">
        Commands matching a rule run on its target without asking, while the target keeps the spec it had when the rule
        was made. A rule is added by <strong>Always allow</strong>; revoking it makes the next matching call ask again.
        Commands refused outright are never covered.
      </p>
      <DialogTable
        label="Always-allow rules"
        className="rules"
        empty={rules.length === 0 ? 'No always-allow rules.' : undefined}
        columns={[
          'Target',
          'Tool',
          'Pattern',
          'Added',
          'By',
          <span key="actions" className="visually-hidden">
            Actions
          </span>,
        ]}
      >
        {rules.map((r) => (
          <tr key={r.id} aria-label={`${r.pattern} on ${r.execution_target}`}>
            <td className="mono">
              {r.execution_target}
              {r.stale && (
                <span
                  className="tag tag--retired"
                  title={
                    'Made for a spec this target no longer has (or before rules kept one): ' +
                    'it matches nothing. Revoke it.'
                  }
                >
                  stale
                </span>
              )}
            </td>
            <td className="mono">{r.tool}</td>
            <td className="mono rules__pattern" title={r.pattern}>
              {r.pattern}
            </td>
            <td className="dim" title={r.created_at}>
              {when(r.created_at)}
            </td>
            <td className="dim">{r.created_by}</td>
            <td>
              <button
                type="button"
                className="button button--small button--danger"
                aria-label={`Revoke ${r.pattern} on ${r.execution_target}`}
                onClick={() => revoke(r)}
              >
                Revoke
              </button>
            </td>
          </tr>
        ))}
      </DialogTable>
      <DoneActions onDone={close} />
    </Modal>
  );
}
