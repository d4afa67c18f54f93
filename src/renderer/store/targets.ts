// The Targets slice: the Core's target table as the sidebar and the pickers draw it; replaced whole on targets.changed.
import { create } from 'zustand';
import type { TargetInfo } from '../../shared/targets.js';
import { offersPane } from './backends.js';

interface TargetsState {
  loaded: boolean;
  list: TargetInfo[];
  /** Config or registry entries that could not be used, one line each (a broken config edit, a bad record …). */
  problems: string[];
  set(list: TargetInfo[]): void;
  setProblems(problems: string[]): void;
}

export const useTargets = create<TargetsState>((set, get) => ({
  loaded: false,
  list: [],
  problems: [],
  set: (list) =>
    set({
      loaded: true,
      list: keepSame(
        get().list,
        list.filter((t) => t.state !== 'removed'),
      ),
    }),
  setProblems: (problems) => set({ problems }),
}));

/**
 * The new list, with the previous object kept for every target that did not change: a fleet's health batch touches
 * a few rows, and only those rows draw again (rows are memoized by their target object).
 */
function keepSame(before: readonly TargetInfo[], next: TargetInfo[]): TargetInfo[] {
  if (before.length === 0) return next;
  const old = new Map(before.map((t) => [t.name, t]));
  return next.map((t) => {
    const was = old.get(t.name);
    return was && JSON.stringify(was) === JSON.stringify(t) ? was : t;
  });
}

/** The target a new pane opens on: the default if it takes panes, else the first active one that does. */
export function preferredTarget(list: readonly TargetInfo[]): string | undefined {
  const usable = list.filter((t) => t.state === 'active' && offersPane(t.flags));
  return (usable.find((t) => t.is_default) ?? usable[0] ?? list[0])?.name;
}
