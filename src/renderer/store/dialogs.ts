// Which of the window's own dialogs is open. (The approvals dialog keeps its own slice; DialogHost renders both.)
import { create } from 'zustand';
import type { TargetInfo } from '../../shared/targets.js';

export type TargetDialogRequest = { mode: 'add' } | { mode: 'edit'; target: TargetInfo };

interface DialogsState {
  targetForm: TargetDialogRequest | undefined;
  /** The always-allow rules list. */
  rulesOpen: boolean;
  openTargetForm(req: TargetDialogRequest): void;
  closeTargetForm(): void;
  setRulesOpen(open: boolean): void;
}

export const useDialogs = create<DialogsState>((set) => ({
  targetForm: undefined,
  rulesOpen: false,
  openTargetForm: (req) => set({ targetForm: req }),
  closeTargetForm: () => set({ targetForm: undefined }),
  setRulesOpen: (open) => set({ rulesOpen: open }),
}));
