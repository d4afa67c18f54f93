// Which of the window's own dialogs is open. (The approvals dialog keeps its own slice; DialogHost renders both.)
import { create } from 'zustand';
import type { TargetInfo } from '../../shared/targets.js';

/**
 * `prefill`: the form starts from these (a session target being saved, a host of ~/.ssh/config); the name, if it is a
 * session target's, keeps it.
 */
export type TargetDialogRequest =
  | { mode: 'add'; prefill?: { name: string; spec: Record<string, unknown> } }
  | { mode: 'edit'; target: TargetInfo };

/** "Are you sure?" before an action that would end something running. */
export interface ConfirmRequest {
  title: string;
  message: string;
  /** What would be ended or who is affected, one line each (the command lines of running programs …). */
  items: string[];
  /** What the lines are, for screen readers ("Running"). */
  itemsLabel: string;
  confirmLabel: string;
  /** The lines are words to read (what enabling a plugin allows), not commands: shown in the text font. */
  itemsAreSentences?: boolean;
  onConfirm(): void;
}

interface DialogsState {
  targetForm: TargetDialogRequest | undefined;
  /** The always-allow rules list. */
  rulesOpen: boolean;
  /** The installed plugins, with Enable / Disable. */
  pluginsOpen: boolean;
  keysOpen: boolean;
  confirm: ConfirmRequest | undefined;
  ask(req: ConfirmRequest): void;
  closeConfirm(): void;
  openTargetForm(req: TargetDialogRequest): void;
  closeTargetForm(): void;
  setRulesOpen(open: boolean): void;
  setPluginsOpen(open: boolean): void;
  setKeysOpen(open: boolean): void;
}

export const useDialogs = create<DialogsState>((set) => ({
  targetForm: undefined,
  rulesOpen: false,
  pluginsOpen: false,
  keysOpen: false,
  confirm: undefined,
  ask: (req) => set({ confirm: req }),
  closeConfirm: () => set({ confirm: undefined }),
  openTargetForm: (req) => set({ targetForm: req }),
  closeTargetForm: () => set({ targetForm: undefined }),
  setRulesOpen: (open) => set({ rulesOpen: open }),
  setPluginsOpen: (open) => set({ pluginsOpen: open }),
  setKeysOpen: (open) => set({ keysOpen: open }),
}));
