// The Processes slice: background processes by session id, merged from processes.list and processes.changed.
import { create } from 'zustand';
import type { ProcessInfo } from '../../shared/api.js';

interface ProcessesState {
  byId: Record<string, ProcessInfo>;
  upsert(list: readonly ProcessInfo[]): void;
  /** All of them anew (after a reconnect: what the Core knows now). */
  replace(list: readonly ProcessInfo[]): void;
}

export const useProcesses = create<ProcessesState>((set) => ({
  byId: {},
  upsert: (list) =>
    set((s) => {
      if (list.length === 0) return s;
      const byId = { ...s.byId };
      for (const p of list) byId[p.session_id] = p;
      return { byId };
    }),
  replace: (list) => set({ byId: Object.fromEntries(list.map((p) => [p.session_id, p])) }),
}));

const order: Record<ProcessInfo['status'], number> = { running: 0, lost: 1, exited: 2, killed: 2 };

/** Running first, then newest first. */
export function sortProcesses(list: ProcessInfo[]): ProcessInfo[] {
  return list.sort((a, b) => order[a.status] - order[b.status] || b.started_at.localeCompare(a.started_at));
}
