// The Activity slice: recent tool calls, newest last; an entry is replaced in place as it goes from running to done.
import { create } from 'zustand';
import type { ActivityEntry } from '../../shared/api.js';

const KEPT = 500;

interface ActivityState {
  entries: ActivityEntry[];
  load(list: ActivityEntry[]): void;
  upsert(entry: ActivityEntry): void;
}

export const useActivity = create<ActivityState>((set) => ({
  entries: [],
  load: (list) =>
    set((s) => {
      // Events that arrived while the list was loading win over the snapshot.
      const live = new Map(s.entries.map((e) => [e.id, e]));
      const merged = list.map((e) => live.get(e.id) ?? e);
      const seen = new Set(merged.map((e) => e.id));
      for (const e of s.entries) if (!seen.has(e.id)) merged.push(e);
      return { entries: merged.slice(-KEPT) };
    }),
  upsert: (entry) =>
    set((s) => {
      const i = s.entries.findIndex((e) => e.id === entry.id);
      if (i >= 0) {
        const entries = s.entries.slice();
        entries[i] = entry;
        return { entries };
      }
      return { entries: [...s.entries, entry].slice(-KEPT) };
    }),
}));
