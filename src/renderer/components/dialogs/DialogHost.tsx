// Where the window's modal dialogs mount, one component per file in this folder, each driven by its own zustand slice.
// A pending approval (the Core is waiting) comes before the window's own forms.
import { useDialogs } from '../../store/dialogs.js';
import { useApprovals } from '../../store/approvals.js';
import { TargetDialog } from './TargetDialog.js';
import { HostKeyDialog } from './HostKeyDialog.js';

export function DialogHost() {
  const targetForm = useDialogs((s) => s.targetForm);
  const approval = useApprovals((s) => s.pending[0]);
  // A pending approval goes on top; a half-filled form underneath stays as it was.
  return (
    <>
      {targetForm && <TargetDialog key={targetForm.mode === 'edit' ? targetForm.target.name : 'add'} req={targetForm} />}
      {approval?.kind === 'host_key' && approval.host_key && <HostKeyDialog key={approval.id} approval={approval} />}
    </>
  );
}
