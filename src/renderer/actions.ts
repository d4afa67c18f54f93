// What each command of the keyboard table does; the palette, menus, buttons and keys all run commands through here.
import { useLayout, tabPaneIds } from './store/layout.js';
import { useUi } from './store/ui.js';
import { useSettings } from './store/settings.js';
import { useDialogs } from './store/dialogs.js';
import { useBroadcast } from './store/broadcast.js';
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

/** The command lines of programs running in these panes (not the idle shell). */
function runningIn(paneIds: readonly string[]): string[] {
  return paneIds.map((id) => sessions.get(id)?.foreground()).filter((x): x is string => x !== undefined);
}

/**
 * Runs `action` at once when nothing runs in the panes; otherwise after the person confirms, as VS Code's terminal
 * does.
 */
function unlessRunning(
  paneIds: readonly string[],
  ask: { title: string; confirmLabel: string; ends: string },
  action: () => void,
): void {
  const items = runningIn(paneIds);
  if (items.length === 0) return action();
  const where = paneIds.length === 1 ? useLayout.getState().panes[paneIds[0]!]?.target : undefined;
  const what = items.length === 1 ? 'A program is' : `${items.length} programs are`;
  useDialogs.getState().ask({
    ...ask,
    message: `${what} still running${where ? ` in this terminal on ${where}` : ''}. ${ask.ends}`,
    items,
    itemsLabel: 'Running',
    onConfirm: action,
  });
}

export function closePane(paneId: string | undefined): void {
  if (!paneId) return;
  unlessRunning(
    [paneId],
    { title: 'Close pane?', confirmLabel: 'Close pane', ends: 'Closing the pane ends it.' },
    () => {
      useLayout.getState().closePane(paneId);
      focusTerminal(useLayout.getState().focusedPaneId);
    },
  );
}

export function closeTab(tabId: string | undefined): void {
  const tab = useLayout.getState().tabs.find((t) => t.id === tabId);
  if (!tab) return;
  unlessRunning(
    tabPaneIds(tab),
    { title: 'Close tab?', confirmLabel: 'Close tab', ends: 'Closing the tab ends it.' },
    () => {
      useLayout.getState().closeTab(tab.id);
      focusTerminal(useLayout.getState().focusedPaneId);
    },
  );
}

/** A pane's target picker: a new shell on the other target, after asking when a program runs in this one. */
export function switchTarget(paneId: string, target: string): void {
  const pane = useLayout.getState().panes[paneId];
  if (!pane || pane.target === target) return;
  unlessRunning(
    [paneId],
    {
      title: 'Switch target?',
      confirmLabel: `Switch to ${target}`,
      ends: `Switching to ${target} ends it and opens a new shell there.`,
    },
    () => {
      useLayout.getState().setPaneTarget(paneId, target);
      focusTerminal(paneId);
    },
  );
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

/** A copy of the tab after it: the same targets, each pane in its pane's directory. */
export function duplicateTab(tabId: string | undefined): void {
  if (tabId) focusTerminal(useLayout.getState().duplicateTab(tabId));
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
    duplicateTab: () => duplicateTab(useLayout.getState().activeTabId),
    closeTab: () => closeTab(useLayout.getState().activeTabId),
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
    plugins: () => useDialogs.getState().setPluginsOpen(true),
    keyboardShortcuts: () => useDialogs.getState().setKeysOpen(true),
    broadcastTab: () => {
      const tab = useLayout.getState().tabs.find((t) => t.id === useLayout.getState().activeTabId);
      if (tab) useBroadcast.getState().only(tabPaneIds(tab));
      focusTerminal(paneId);
    },
    broadcastPane: () => {
      if (paneId) useBroadcast.getState().toggle(paneId);
      focusTerminal(paneId);
    },
    broadcastStop: () => {
      useBroadcast.getState().stop();
      focusTerminal(paneId);
    },
  };
  run[id]();
}
