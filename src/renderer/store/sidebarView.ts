// How the sidebar shows the targets: the filter, grouping, order and collapsed groups; kept per browser.
import { create } from 'zustand';
import type { GroupBy, SortBy } from '../targetFilter.js';

const KEY = 'switchboard.sidebarView';

interface SidebarViewState {
  query: string;
  groupBy: GroupBy;
  sortBy: SortBy;
  /** Keys of collapsed groups, by grouping (`owner:ci/job-41`). */
  collapsed: string[];
  setQuery(query: string): void;
  setGroupBy(groupBy: GroupBy): void;
  setSortBy(sortBy: SortBy): void;
  toggleGroup(key: string, open?: boolean): void;
}

function saved(): Pick<SidebarViewState, 'groupBy' | 'sortBy' | 'collapsed'> {
  const fallback = { groupBy: 'none' as GroupBy, sortBy: 'name' as SortBy, collapsed: [] };
  try {
    const raw = JSON.parse(window.localStorage.getItem(KEY) ?? 'null') as Record<string, unknown> | null;
    if (!raw || typeof raw !== 'object') return fallback;
    const groupBy = ['none', 'source', 'owner', 'backend'].includes(raw.groupBy as string)
      ? (raw.groupBy as GroupBy)
      : 'none';
    const sortBy = ['name', 'state', 'lastUse'].includes(raw.sortBy as string) ? (raw.sortBy as SortBy) : 'name';
    const collapsed = Array.isArray(raw.collapsed)
      ? raw.collapsed.filter((k): k is string => typeof k === 'string').slice(0, 500)
      : [];
    return { groupBy, sortBy, collapsed };
  } catch {
    return fallback;
  }
}

function keep(s: Pick<SidebarViewState, 'groupBy' | 'sortBy' | 'collapsed'>): void {
  try {
    window.localStorage.setItem(KEY, JSON.stringify({ groupBy: s.groupBy, sortBy: s.sortBy, collapsed: s.collapsed }));
  } catch {
    /* storage unavailable: the choice lasts this page */
  }
}

export const useSidebarView = create<SidebarViewState>((set, get) => ({
  query: '',
  ...saved(),
  setQuery: (query) => set({ query }),
  setGroupBy: (groupBy) => {
    set({ groupBy });
    keep(get());
  },
  setSortBy: (sortBy) => {
    set({ sortBy });
    keep(get());
  },
  toggleGroup: (key, open) => {
    const was = get().collapsed.includes(key);
    const collapse = open === undefined ? !was : !open;
    if (collapse === was) return;
    set({ collapsed: collapse ? [...get().collapsed, key] : get().collapsed.filter((k) => k !== key) });
    keep(get());
  },
}));
