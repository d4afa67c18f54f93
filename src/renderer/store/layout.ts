// Tabs and panes as the window draws them: each tab a tree of splits, each pane's target, cwd, title and status.
// Terminal bytes never pass here.
// Over 380 lines: one store whose actions change one tree of tabs and splits, and the selectors read from it.
import type { PaneReconnect } from '../../shared/api.js';
import { create } from 'zustand';
import type { TabColor, WorkspaceLayout } from '../../shared/api.js';
import {
  fromSaved,
  leaf,
  paneIdsOf,
  paneRects,
  removePane,
  setRatio,
  splitAt,
  toSaved,
  type LayoutNode,
  type SplitDir,
} from './layoutTree.js';
import { neighbourInDirection, type FocusDirection } from './focusNeighbour.js';

/** `reconnecting`: the connection dropped and the Core is trying again (`reconnect` has the countdown). */
export type PaneStatus = 'connecting' | 'open' | 'reconnecting' | 'exited' | 'lost' | 'failed';

export interface PaneState {
  /** The UI's id of the pane; the Core's pane_id lives with the terminal session and changes on reconnect. */
  id: string;
  target: string;
  cwd?: string;
  /** The directory this shell was to start in did not exist; it started in the nearest existing parent. */
  cwdMissing?: string;
  generation?: string;
  status: PaneStatus;
  /** While `reconnecting`: when the next attempt is, or that one is under way, and why the last one failed. */
  reconnect?: PaneReconnect;
  /** What the program in the terminal calls itself (OSC 0/2). */
  title?: string;
  /** A directory to `cd` into once the shell is up: a split starts where its source pane was. */
  startCwd?: string;
  /** The Core's pane while its shell is live: saved with the layout, so a reloaded window resumes it. */
  corePaneId?: string;
  /** A Core pane to resume instead of opening a new shell (from the saved layout, once). */
  resumeId?: string;
}

export interface TabState {
  id: string;
  root: LayoutNode;
  /** Set by the person (double-click to rename); otherwise the title comes from the focused pane. */
  title?: string;
  /** A pane shown over the whole tab, the others hidden but alive. */
  zoomed?: string;
  /** The colour the person marked the tab with (its context menu). */
  color?: TabColor;
}

export type SavedTab = WorkspaceLayout['tabs'][number];

interface LayoutState {
  tabs: TabState[];
  panes: Record<string, PaneState>;
  activeTabId: string | undefined;
  focusedPaneId: string | undefined;
  newTab(target: string): string;
  /** Replace everything with saved tabs; each pane resumes its Core pane if it has one, else opens a new terminal. */
  restore(tabs: readonly SavedTab[], activeTab: number): void;
  splitPane(paneId: string, dir?: SplitDir, target?: string): string | undefined;
  closePane(paneId: string): void;
  closeTab(tabId: string): void;
  activateTab(tabId: string): void;
  /** The tab `delta` places after the active one, wrapping around (Ctrl+Tab / Ctrl+Shift+Tab). */
  cycleTab(delta: number): void;
  moveTab(tabId: string, toIndex: number): void;
  renameTab(tabId: string, title: string | undefined): void;
  setTabColor(tabId: string, color: TabColor | undefined): void;
  /**
   * A new tab after this one with the same panes: each on its pane's target, starting in its pane's directory, split
   * the same way. Returns the pane that takes the focus.
   */
  duplicateTab(tabId: string): string | undefined;
  focusPane(paneId: string): void;
  /** Focus the pane next to the focused one; false when there is none that way. */
  moveFocus(dir: FocusDirection): boolean;
  resizeSplit(tabId: string, splitId: string, ratio: number): void;
  toggleZoom(paneId: string): void;
  setPaneTarget(paneId: string, target: string): void;
  updatePane(paneId: string, patch: Partial<Omit<PaneState, 'id'>>): void;
}

let seq = 0;
const newId = (prefix: string): string => `${prefix}${++seq}`;
const newSplitId = (): string => newId('s');

export function tabPaneIds(tab: TabState): string[] {
  return paneIdsOf(tab.root);
}

function tabOf(tabs: readonly TabState[], paneId: string): TabState | undefined {
  return tabs.find((t) => paneIdsOf(t.root).includes(paneId));
}

/** Where a new pane in the tab gets the focus (its first pane, or the zoomed one). */
function firstFocus(tab: TabState | undefined): string | undefined {
  return tab ? (tab.zoomed ?? paneIdsOf(tab.root)[0]) : undefined;
}

export const useLayout = create<LayoutState>((set, get) => {
  const replaceTab = (tabs: TabState[], tab: TabState): TabState[] => tabs.map((t) => (t.id === tab.id ? tab : t));
  return {
    tabs: [],
    panes: {},
    activeTabId: undefined,
    focusedPaneId: undefined,

    newTab: (target) => {
      const pane: PaneState = { id: newId('p'), target, status: 'connecting' };
      const tab: TabState = { id: newId('t'), root: leaf(pane.id) };
      set((s) => ({
        tabs: [...s.tabs, tab],
        panes: { ...s.panes, [pane.id]: pane },
        activeTabId: tab.id,
        focusedPaneId: pane.id,
      }));
      return pane.id;
    },

    restore: (savedTabs, activeTab) => {
      const panes: Record<string, PaneState> = {};
      const tabs: TabState[] = [];
      for (const saved of savedTabs) {
        const ids = saved.panes.map(({ target, pane_id }) => {
          const pane: PaneState = {
            id: newId('p'),
            target,
            status: 'connecting',
            ...(pane_id ? { resumeId: pane_id } : {}),
          };
          panes[pane.id] = pane;
          return pane.id;
        });
        const root = fromSaved(saved.split, ids, newSplitId);
        if (root) {
          tabs.push({
            id: newId('t'),
            root,
            ...(saved.title ? { title: saved.title } : {}),
            ...(saved.color ? { color: saved.color } : {}),
          });
        }
      }
      const active = tabs[Math.min(Math.max(0, activeTab), tabs.length - 1)];
      set({ tabs, panes, activeTabId: active?.id, focusedPaneId: firstFocus(active) });
    },

    splitPane: (paneId, dir = 'right', target) => {
      const s = get();
      const tab = tabOf(s.tabs, paneId);
      const source = s.panes[paneId];
      if (!tab || !source) return undefined;
      const onSameTarget = target === undefined || target === source.target;
      const pane: PaneState = {
        id: newId('p'),
        target: target ?? source.target,
        status: 'connecting',
        ...(onSameTarget && source.cwd ? { startCwd: source.cwd } : {}),
      };
      const root = splitAt(tab.root, paneId, pane.id, dir, newSplitId());
      // Splitting a zoomed pane shows the tab again, or the new pane would open hidden.
      const { zoomed: _zoomed, ...rest } = tab;
      set({
        tabs: replaceTab(s.tabs, { ...rest, root }),
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
      const order = paneIdsOf(tab.root);
      const root = removePane(tab.root, paneId);
      if (!root) {
        const tIdx = s.tabs.findIndex((t) => t.id === tab.id);
        const tabs = s.tabs.filter((t) => t.id !== tab.id);
        const nextTab =
          s.activeTabId === tab.id ? (tabs[tIdx] ?? tabs[tIdx - 1]) : tabs.find((t) => t.id === s.activeTabId);
        set({
          tabs,
          panes,
          activeTabId: nextTab?.id,
          focusedPaneId: s.activeTabId === tab.id ? firstFocus(nextTab) : s.focusedPaneId,
        });
        return;
      }
      const { zoomed, ...rest } = tab;
      const next: TabState = zoomed && zoomed !== paneId ? { ...rest, root, zoomed } : { ...rest, root };
      const left = order[Math.max(0, order.indexOf(paneId) - 1)];
      const focus = s.focusedPaneId === paneId ? (left !== paneId ? left : paneIdsOf(root)[0]) : s.focusedPaneId;
      set({ tabs: replaceTab(s.tabs, next), panes, focusedPaneId: focus });
    },

    closeTab: (tabId) => {
      const tab = get().tabs.find((t) => t.id === tabId);
      for (const id of tab ? paneIdsOf(tab.root) : []) get().closePane(id);
    },

    activateTab: (tabId) => {
      const s = get();
      const tab = s.tabs.find((t) => t.id === tabId);
      if (!tab || s.activeTabId === tabId) return;
      set({ activeTabId: tabId, focusedPaneId: firstFocus(tab) });
    },

    cycleTab: (delta) => {
      const { tabs, activeTabId } = get();
      if (tabs.length === 0) return;
      const at = Math.max(
        0,
        tabs.findIndex((t) => t.id === activeTabId),
      );
      const next = tabs[(((at + delta) % tabs.length) + tabs.length) % tabs.length];
      if (next) get().activateTab(next.id);
    },

    moveTab: (tabId, toIndex) => {
      const tabs = [...get().tabs];
      const from = tabs.findIndex((t) => t.id === tabId);
      if (from < 0) return;
      const [tab] = tabs.splice(from, 1);
      tabs.splice(Math.min(Math.max(0, toIndex), tabs.length), 0, tab!);
      set({ tabs });
    },

    renameTab: (tabId, title) => {
      const tab = get().tabs.find((t) => t.id === tabId);
      if (!tab) return;
      const { title: _old, ...rest } = tab;
      const clean = title?.trim().slice(0, 128);
      set((s) => ({ tabs: replaceTab(s.tabs, clean ? { ...rest, title: clean } : rest) }));
    },

    setTabColor: (tabId, color) => {
      const tab = get().tabs.find((t) => t.id === tabId);
      if (!tab || tab.color === color) return;
      const { color: _old, ...rest } = tab;
      set((s) => ({ tabs: replaceTab(s.tabs, color ? { ...rest, color } : rest) }));
    },

    duplicateTab: (tabId) => {
      const s = get();
      const at = s.tabs.findIndex((t) => t.id === tabId);
      const tab = s.tabs[at];
      if (!tab) return undefined;
      const order = paneIdsOf(tab.root).filter((id) => s.panes[id] !== undefined);
      const panes = { ...s.panes };
      const copies = new Map<string, string>();
      for (const id of order) {
        const source = s.panes[id]!;
        const pane: PaneState = {
          id: newId('p'),
          target: source.target,
          status: 'connecting',
          ...(source.cwd ? { startCwd: source.cwd } : {}),
        };
        panes[pane.id] = pane;
        copies.set(id, pane.id);
      }
      const root = fromSaved(toSaved(tab.root, order), [...copies.values()], newSplitId);
      if (!root) return undefined;
      const copy: TabState = {
        id: newId('t'),
        root,
        ...(tab.title ? { title: tab.title } : {}),
        ...(tab.color ? { color: tab.color } : {}),
      };
      const focus =
        (s.focusedPaneId && copies.get(s.focusedPaneId)) ?? copies.get(tab.zoomed ?? '') ?? paneIdsOf(root)[0];
      set({
        tabs: [...s.tabs.slice(0, at + 1), copy, ...s.tabs.slice(at + 1)],
        panes,
        activeTabId: copy.id,
        focusedPaneId: focus,
      });
      return focus;
    },

    focusPane: (paneId) => {
      const s = get();
      if (s.focusedPaneId === paneId) return;
      const tab = tabOf(s.tabs, paneId);
      set({ focusedPaneId: paneId, ...(tab ? { activeTabId: tab.id } : {}) });
    },

    moveFocus: (dir) => {
      const s = get();
      const tab = s.tabs.find((t) => t.id === s.activeTabId);
      if (!tab || !s.focusedPaneId || tab.zoomed) return false;
      const next = neighbourInDirection(paneRects(tab.root), s.focusedPaneId, dir);
      if (!next) return false;
      set({ focusedPaneId: next });
      return true;
    },

    resizeSplit: (tabId, splitId, ratio) => {
      const tab = get().tabs.find((t) => t.id === tabId);
      if (!tab) return;
      const root = setRatio(tab.root, splitId, ratio);
      if (root !== tab.root) set((s) => ({ tabs: replaceTab(s.tabs, { ...tab, root }) }));
    },

    toggleZoom: (paneId) => {
      const tab = tabOf(get().tabs, paneId);
      if (!tab) return;
      const { zoomed, ...rest } = tab;
      const next: TabState = zoomed === paneId || paneIdsOf(tab.root).length < 2 ? rest : { ...rest, zoomed: paneId };
      set((s) => ({ tabs: replaceTab(s.tabs, next), focusedPaneId: paneId }));
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
  };
});

/** The target of the focused pane: what the Processes panel shows. */
export const selectFocusedTarget = (s: LayoutState): string | undefined =>
  s.focusedPaneId ? s.panes[s.focusedPaneId]?.target : undefined;

/**
 * What is kept across restarts: every pane's target, tab by tab, how the tab is split, its given title and colour, the
 * tab in front.
 */
export function savedLayout(s: Pick<LayoutState, 'tabs' | 'panes' | 'activeTabId'>): WorkspaceLayout {
  const tabs: SavedTab[] = [];
  for (const t of s.tabs) {
    const order = paneIdsOf(t.root).filter((id) => s.panes[id] !== undefined);
    if (order.length === 0) continue;
    tabs.push({
      panes: order.map((id) => {
        const p = s.panes[id]!;
        const live = p.status === 'open' || p.status === 'reconnecting';
        return p.corePaneId && live ? { target: p.target, pane_id: p.corePaneId } : { target: p.target };
      }),
      ...(order.length > 1 ? { split: toSaved(t.root, order) } : {}),
      ...(t.title ? { title: t.title } : {}),
      ...(t.color ? { color: t.color } : {}),
    });
  }
  return {
    tabs,
    active_tab: Math.max(
      0,
      s.tabs.findIndex((t) => t.id === s.activeTabId),
    ),
  };
}

/** A tab's title: the name given to it, else what the focused (or first) pane's program says, else `target: cwd`. */
export function tabTitle(s: Pick<LayoutState, 'panes' | 'focusedPaneId'>, tab: TabState): string {
  const { lead, path } = tabTitleParts(s, tab);
  return path ? `${lead}: ${shortPath(path)}` : lead;
}

/**
 * The title in its parts, for a tab that draws them apart: `lead` (a name, a program's title, or the target) and, for a
 * `target: cwd` title, the cwd, which a narrow tab cuts from its start (its last folder is what tells tabs apart).
 */
export function tabTitleParts(
  s: Pick<LayoutState, 'panes' | 'focusedPaneId'>,
  tab: TabState,
): { lead: string; path?: string } {
  if (tab.title) return { lead: tab.title };
  const ids = paneIdsOf(tab.root);
  const pane = s.panes[s.focusedPaneId && ids.includes(s.focusedPaneId) ? s.focusedPaneId : (ids[0] ?? '')];
  if (!pane) return { lead: '' };
  if (pane.title) return { lead: pane.title };
  return pane.cwd ? { lead: pane.target, path: pane.cwd } : { lead: pane.target };
}

/** The last two parts of a path, as a tab has little room. */
export function shortPath(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts.length <= 2 ? path : `…/${parts.slice(-2).join('/')}`;
}
