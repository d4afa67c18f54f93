// The Targets slice: the Core's target table as the sidebar and the pickers draw it; replaced whole on targets.changed.
import { create } from 'zustand';
import type { TargetInfo } from '../../shared/targets.js';

interface TargetsState {
  loaded: boolean;
  list: TargetInfo[];
  set(list: TargetInfo[]): void;
}

export const useTargets = create<TargetsState>((set) => ({
  loaded: false,
  list: [],
  set: (list) => set({ loaded: true, list: list.filter((t) => t.state !== 'removed') }),
}));

/** The target a new pane opens on: the default if it takes panes, else the first active one. */
export function preferredTarget(list: readonly TargetInfo[]): string | undefined {
  const usable = list.filter((t) => t.state === 'active' && t.flags?.supports_pty !== false);
  return (usable.find((t) => t.is_default) ?? usable[0] ?? list[0])?.name;
}
