// Where the window's modal dialogs mount, one component per file in this folder, each driven by its own zustand slice.
// A pending approval (the Core is waiting) comes before the window's own forms; approvals show one at a time, oldest
// first.
import { useDialogs } from '../../store/dialogs.js';
import { useApprovals } from '../../store/approvals.js';
import { TargetDialog } from './TargetDialog.js';
import { HostKeyDialog } from './HostKeyDialog.js';
import { ApproveCommandDialog } from './ApproveCommandDialog.js';
import { ApprovalRulesDialog } from './ApprovalRulesDialog.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { PluginsDialog } from './PluginsDialog.js';
import { KeysDialog } from './KeysDialog.js';

export function DialogHost() {
  const targetForm = useDialogs((s) => s.targetForm);
  const rulesOpen = useDialogs((s) => s.rulesOpen);
  const pluginsOpen = useDialogs((s) => s.pluginsOpen);
  const keysOpen = useDialogs((s) => s.keysOpen);
  const confirm = useDialogs((s) => s.confirm);
  const approval = useApprovals((s) => s.pending[0]);
  const total = useApprovals((s) => s.pending.length);
  // A pending approval goes on top; a half-filled form underneath stays as it was.
  return (
    <>
      {targetForm && (
        <TargetDialog key={targetForm.mode === 'edit' ? targetForm.target.name : 'add'} req={targetForm} />
      )}
      {rulesOpen && <ApprovalRulesDialog />}
      {pluginsOpen && <PluginsDialog />}
      {keysOpen && <KeysDialog />}
      {confirm && <ConfirmDialog req={confirm} />}
      {approval?.kind === 'host_key' && approval.host_key && <HostKeyDialog key={approval.id} approval={approval} />}
      {approval?.kind === 'command' && (
        <ApproveCommandDialog key={approval.id} approval={approval} position={1} total={total} />
      )}
    </>
  );
}
