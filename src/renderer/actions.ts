// What each command of the keyboard table does; the palette, menus, buttons and keys all run commands through here.
import { useLayout, tabPaneIds } from './store/layout.js';
import { useUi } from './store/ui.js';
import { useSettings } from './store/settings.js';
import { useDialogs } from './store/dialogs.js';
import { preferredTarget, useTargets } from './store/targets.js';
import { sessions, focusTerminal } from './terminal/sessions.js';
import { cycleRegion } from './regions.js';
import type { CommandId } from './keyboard.js';
import type { SplitDir } from './store/layoutTree.js';
import type { FocusDirection } from './store/focusNeighbour.js';

/** A new tab on the focused pane's target (or the preferred one). */
export function openNewTab(): void {
  const s = useLayout.getState();
  const focused = s.focusedPaneId ? s.panes[s.focusedPaneId]?.target : undefined;
  const target = focused ?? preferredTarget(useTargets.getState().list);
  if (target) focusTerminal(s.newTab(target));
}

export function splitPane(paneId: string | undefined, dir: SplitDir): void {
  if (!paneId) return openNewTab();
  focusTerminal(useLayout.getState().splitPane(paneId, dir));
}

export function closePane(paneId: string | undefined): void {
  if (!paneId) return;
  useLayout.getState().closePane(paneId);
  focusTerminal(useLayout.getState().focusedPaneId);
}

export function toggleZoom(paneId: string | undefined): void {
  if (!paneId) return;
  useLayout.getState().toggleZoom(paneId);
  focusTerminal(paneId);
}

function moveFocus(dir: FocusDirection): void {
  if (!useLayout.getState().moveFocus(dir)) return;
  // The pane is already on screen: focus it now, so keys typed right after land there.
  const id = useLayout.getState().focusedPaneId;
  if (id) sessions.get(id)?.focus();
}

function goToTab(n: number): void {
  const { tabs } = useLayout.getState();
  const tab = n === 9 ? tabs.at(-1) : tabs[n - 1];
  if (!tab) return;
  useLayout.getState().activateTab(tab.id);
  focusTerminal(useLayout.getState().focusedPaneId);
}

function cycleTab(delta: number): void {
  useLayout.getState().cycleTab(delta);
  focusTerminal(useLayout.getState().focusedPaneId);
}

/** Asks the active tab's strip entry to show its rename field. */
export const renameRequests = new EventTarget();

function zoomFont(delta: number | 'reset'): void {
  const s = useSettings.getState();
  s.update({ zoom: delta === 'reset' ? 0 : s.zoom + delta });
}

export function runCommand(id: CommandId, paneId: string | undefined = useLayout.getState().focusedPaneId): void {
  const session = paneId ? sessions.get(paneId) : undefined;
  const run: Record<CommandId, () => void> = {
    palette: () => useUi.getState().setPalette(true),
    newTab: openNewTab,
    splitRight: () => splitPane(paneId, 'right'),
    splitDown: () => splitPane(paneId, 'down'),
    closePane: () => closePane(paneId),
    zoomPane: () => toggleZoom(paneId),
    focusLeft: () => moveFocus('left'),
    focusRight: () => moveFocus('right'),
    focusUp: () => moveFocus('up'),
    focusDown: () => moveFocus('down'),
    find: () => paneId && useUi.getState().openFind(paneId),
    copy: () => void session?.copy(),
    paste: () => {
      void session?.paste();
      session?.focus();
    },
    clear: () => {
      session?.clear();
      session?.focus();
    },
    fontBigger: () => zoomFont(1),
    fontSmaller: () => zoomFont(-1),
    fontReset: () => zoomFont('reset'),
    nextTab: () => cycleTab(1),
    prevTab: () => cycleTab(-1),
    renameTab: () => {
      const tabId = useLayout.getState().activeTabId;
      if (tabId) renameRequests.dispatchEvent(new CustomEvent('rename', { detail: tabId }));
    },
    closeTab: () => {
      const s = useLayout.getState();
      const tab = s.tabs.find((t) => t.id === s.activeTabId);
      if (tab) for (const id of tabPaneIds(tab)) closePane(id);
    },
    tab1: () => goToTab(1),
    tab2: () => goToTab(2),
    tab3: () => goToTab(3),
    tab4: () => goToTab(4),
    tab5: () => goToTab(5),
    tab6: () => goToTab(6),
    tab7: () => goToTab(7),
    tab8: () => goToTab(8),
    tab9: () => goToTab(9),
    nextRegion: () => cycleRegion(1),
    prevRegion: () => cycleRegion(-1),
    toggleSidebar: () => useUi.getState().toggleSidebar(),
    settings: () => useUi.getState().setSettings(true),
    addTarget: () => useDialogs.getState().openTargetForm({ mode: 'add' }),
    approvalRules: () => useDialogs.getState().setRulesOpen(true),
  };
  run[id]();
}
