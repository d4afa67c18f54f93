// Where the window's modal dialogs mount, one component per file in this folder, each driven by its own zustand slice.
// The "Approve command" dialog (approvals) belongs here too.
import { useDialogs } from '../../store/dialogs.js';
import { TargetDialog } from './TargetDialog.js';

export function DialogHost() {
  const targetForm = useDialogs((s) => s.targetForm);
  return targetForm ? <TargetDialog key={targetForm.mode === 'edit' ? targetForm.target.name : 'add'} req={targetForm} /> : null;
}
