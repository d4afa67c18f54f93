// What the window shows around the terminals: the palette, Settings, the collapsed sidebar, per-pane find bars and the
// context menu.
import { create } from 'zustand';

const SIDEBAR_KEY = 'switchboard.sidebarCollapsed';

export interface ContextMenuAt {
  paneId: string;
  x: number;
  y: number;
}

interface UiState {
  paletteOpen: boolean;
  settingsOpen: boolean;
  sidebarCollapsed: boolean;
  /** Panes whose find bar is open; `findFocus` bumps to put the cursor back in an already open bar. */
  finding: Record<string, number>;
  contextMenu: ContextMenuAt | undefined;
  setPalette(open: boolean): void;
  setSettings(open: boolean): void;
  toggleSidebar(): void;
  openFind(paneId: string): void;
  closeFind(paneId: string): void;
  setContextMenu(at: ContextMenuAt | undefined): void;
}

function savedCollapsed(): boolean {
  try {
    return window.localStorage.getItem(SIDEBAR_KEY) === '1';
  } catch {
    // no storage (private mode): the default
    return false;
  }
}

export const useUi = create<UiState>((set, get) => ({
  paletteOpen: false,
  settingsOpen: false,
  sidebarCollapsed: savedCollapsed(),
  finding: {},
  contextMenu: undefined,
  setPalette: (open) => set({ paletteOpen: open }),
  setSettings: (open) => set({ settingsOpen: open }),
  toggleSidebar: () => {
    const next = !get().sidebarCollapsed;
    window.localStorage.setItem(SIDEBAR_KEY, next ? '1' : '0');
    set({ sidebarCollapsed: next });
  },
  openFind: (paneId) => set((s) => ({ finding: { ...s.finding, [paneId]: (s.finding[paneId] ?? 0) + 1 } })),
  closeFind: (paneId) =>
    set((s) => {
      const finding = { ...s.finding };
      delete finding[paneId];
      return { finding };
    }),
  setContextMenu: (at) => set({ contextMenu: at }),
}));
