// Which of the window's own dialogs is open. (The approvals dialog keeps its own slice; DialogHost renders both.)
import { create } from 'zustand';
import type { TargetInfo } from '../../shared/targets.js';

export type TargetDialogRequest = { mode: 'add' } | { mode: 'edit'; target: TargetInfo };

interface DialogsState {
  targetForm: TargetDialogRequest | undefined;
  openTargetForm(req: TargetDialogRequest): void;
  closeTargetForm(): void;
}

export const useDialogs = create<DialogsState>((set) => ({
  targetForm: undefined,
  openTargetForm: (req) => set({ targetForm: req }),
  closeTargetForm: () => set({ targetForm: undefined }),
}));
