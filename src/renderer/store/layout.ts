// Tabs and panes as the window draws them: which target each pane is on, its cwd and status. Terminal bytes never pass here.
import { create } from 'zustand';

export type PaneStatus = 'connecting' | 'open' | 'exited' | 'lost' | 'failed';

export interface PaneState {
  /** The UI's id of the pane; the Core's pane_id lives with the terminal session and changes on reconnect. */
  id: string;
  target: string;
  cwd?: string;
  generation?: string;
  status: PaneStatus;
}

export interface TabState {
  id: string;
  paneIds: string[];
}

interface LayoutState {
  tabs: TabState[];
  panes: Record<string, PaneState>;
  activeTabId: string | undefined;
  focusedPaneId: string | undefined;
  newTab(target: string): string;
  /** Replace everything with saved tabs (targets per pane); each pane opens a new terminal. */
  restore(tabs: readonly (readonly string[])[], activeTab: number): void;
  splitPane(paneId: string, target?: string): string | undefined;
  closePane(paneId: string): void;
  closeTab(tabId: string): void;
  activateTab(tabId: string): void;
  focusPane(paneId: string): void;
  setPaneTarget(paneId: string, target: string): void;
  updatePane(paneId: string, patch: Partial<Omit<PaneState, 'id'>>): void;
}

let seq = 0;
const newId = (prefix: string): string => `${prefix}${++seq}`;

function tabOf(tabs: readonly TabState[], paneId: string): TabState | undefined {
  return tabs.find((t) => t.paneIds.includes(paneId));
}

export const useLayout = create<LayoutState>((set, get) => ({
  tabs: [],
  panes: {},
  activeTabId: undefined,
  focusedPaneId: undefined,

  newTab: (target) => {
    const pane: PaneState = { id: newId('p'), target, status: 'connecting' };
    const tab: TabState = { id: newId('t'), paneIds: [pane.id] };
    set((s) => ({ tabs: [...s.tabs, tab], panes: { ...s.panes, [pane.id]: pane }, activeTabId: tab.id, focusedPaneId: pane.id }));
    return pane.id;
  },

  restore: (savedTabs, activeTab) => {
    const panes: Record<string, PaneState> = {};
    const tabs: TabState[] = savedTabs
      .filter((targets) => targets.length > 0)
      .map((targets) => {
        const paneIds = targets.map((target) => {
          const pane: PaneState = { id: newId('p'), target, status: 'connecting' };
          panes[pane.id] = pane;
          return pane.id;
        });
        return { id: newId('t'), paneIds };
      });
    const active = tabs[Math.min(Math.max(0, activeTab), tabs.length - 1)];
    set({ tabs, panes, activeTabId: active?.id, focusedPaneId: active?.paneIds[0] });
  },

  splitPane: (paneId, target) => {
    const s = get();
    const tab = tabOf(s.tabs, paneId);
    const source = s.panes[paneId];
    if (!tab || !source) return undefined;
    const pane: PaneState = { id: newId('p'), target: target ?? source.target, status: 'connecting' };
    const at = tab.paneIds.indexOf(paneId) + 1;
    const paneIds = [...tab.paneIds.slice(0, at), pane.id, ...tab.paneIds.slice(at)];
    set({
      tabs: s.tabs.map((t) => (t.id === tab.id ? { ...t, paneIds } : t)),
      panes: { ...s.panes, [pane.id]: pane },
      focusedPaneId: pane.id,
    });
    return pane.id;
  },

  closePane: (paneId) => {
    const s = get();
    const tab = tabOf(s.tabs, paneId);
    if (!tab) return;
    const panes = { ...s.panes };
    delete panes[paneId];
    const idx = tab.paneIds.indexOf(paneId);
    const paneIds = tab.paneIds.filter((id) => id !== paneId);
    if (paneIds.length === 0) {
      const tIdx = s.tabs.findIndex((t) => t.id === tab.id);
      const tabs = s.tabs.filter((t) => t.id !== tab.id);
      const nextTab = s.activeTabId === tab.id ? (tabs[tIdx] ?? tabs[tIdx - 1]) : tabs.find((t) => t.id === s.activeTabId);
      set({ tabs, panes, activeTabId: nextTab?.id, focusedPaneId: nextTab?.paneIds[0] });
      return;
    }
    set({
      tabs: s.tabs.map((t) => (t.id === tab.id ? { ...t, paneIds } : t)),
      panes,
      focusedPaneId: s.focusedPaneId === paneId ? paneIds[Math.max(0, idx - 1)] : s.focusedPaneId,
    });
  },

  closeTab: (tabId) => {
    const tab = get().tabs.find((t) => t.id === tabId);
    for (const id of tab?.paneIds ?? []) get().closePane(id);
  },

  activateTab: (tabId) => {
    const tab = get().tabs.find((t) => t.id === tabId);
    if (tab) set({ activeTabId: tabId, focusedPaneId: tab.paneIds[0] });
  },

  focusPane: (paneId) => {
    const s = get();
    if (s.focusedPaneId === paneId) return;
    const tab = tabOf(s.tabs, paneId);
    set({ focusedPaneId: paneId, ...(tab ? { activeTabId: tab.id } : {}) });
  },

  setPaneTarget: (paneId, target) => {
    const pane = get().panes[paneId];
    if (!pane || pane.target === target) return;
    set((s) => ({ panes: { ...s.panes, [paneId]: { id: paneId, target, status: 'connecting' } } }));
  },

  updatePane: (paneId, patch) => {
    const pane = get().panes[paneId];
    if (!pane) return;
    set((s) => ({ panes: { ...s.panes, [paneId]: { ...pane, ...patch } } }));
  },
}));

/** The target of the focused pane: what the Processes panel shows. */
export const selectFocusedTarget = (s: LayoutState): string | undefined =>
  s.focusedPaneId ? s.panes[s.focusedPaneId]?.target : undefined;

/** What is kept across restarts: the target of every pane, tab by tab, and which tab was in front. */
export function savedLayout(s: Pick<LayoutState, 'tabs' | 'panes' | 'activeTabId'>): { tabs: { panes: { target: string }[] }[]; active_tab: number } {
  const tabs = s.tabs
    .map((t) => ({ panes: t.paneIds.map((id) => s.panes[id]).filter((p) => p !== undefined).map((p) => ({ target: p.target })) }))
    .filter((t) => t.panes.length > 0);
  return { tabs, active_tab: Math.max(0, s.tabs.findIndex((t) => t.id === s.activeTabId)) };
}
