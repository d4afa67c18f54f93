// The window: Targets sidebar | tabs of side-by-side terminal panes over a dock with Processes and Activity.
import { useEffect } from 'react';
import { Sidebar } from './components/Sidebar.js';
import { TabBar, openNewTab } from './components/TabBar.js';
import { Workspace } from './components/Workspace.js';
import { ProcessesPanel } from './components/ProcessesPanel.js';
import { ActivityFeed } from './components/ActivityFeed.js';
import { Toasts } from './components/Toasts.js';
import { StatusBar } from './components/StatusBar.js';
import { ConnectionBanner } from './components/ConnectionBanner.js';
import { DialogHost } from './components/dialogs/DialogHost.js';
import { DockSplitter, useDockHeight } from './components/DockSplitter.js';
import { useLayout } from './store/layout.js';
import { useTargets } from './store/targets.js';
import { restoreWorkspace } from './store/workspacePersist.js';
import { startSync } from './store/sync.js';
import { focusTerminal } from './terminal/sessions.js';
import { appShortcut, type AppShortcut } from './keyboard.js';

function runShortcut(action: AppShortcut): void {
  const layout = useLayout.getState();
  const focused = layout.focusedPaneId;
  switch (action) {
    case 'newTab':
      openNewTab();
      return;
    case 'split':
      if (focused) focusTerminal(layout.splitPane(focused));
      else openNewTab();
      return;
    case 'closePane':
      if (!focused) return;
      layout.closePane(focused);
      focusTerminal(useLayout.getState().focusedPaneId);
  }
}

/** Once the targets are known: the last session's tabs and panes, or one terminal on the preferred target. */
function useFirstTab(): void {
  const loaded = useTargets((s) => s.loaded);
  useEffect(() => {
    if (loaded) void restoreWorkspace();
  }, [loaded]);
}

/** The window title names the focused pane's target, as terminal apps do. */
function useWindowTitle(): void {
  const target = useLayout((s) => (s.focusedPaneId ? s.panes[s.focusedPaneId]?.target : undefined));
  useEffect(() => {
    document.title = target ? `${target} — Switchboard` : 'Switchboard';
  }, [target]);
}

export function App() {
  useEffect(() => startSync(), []);
  useFirstTab();
  useWindowTitle();
  const [dockHeight, setDockHeight] = useDockHeight();
  useEffect(() => {
    // Capture phase: the shortcut wins over xterm's own key handling.
    const onKey = (e: KeyboardEvent): void => {
      const action = appShortcut(e);
      if (!action) return;
      // A dialog owns the keyboard while it is open: no tab opens or pane closes behind it.
      if (document.querySelector('[role="dialog"]')) return;
      e.preventDefault();
      e.stopPropagation();
      runShortcut(action);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);

  return (
    <div className="app">
      <Sidebar />
      <div className="main">
        <ConnectionBanner />
        <TabBar />
        <Workspace />
        <DockSplitter height={dockHeight} onChange={setDockHeight} />
        <div className="dock" style={{ height: dockHeight }}>
          <ProcessesPanel />
          <ActivityFeed />
        </div>
      </div>
      <StatusBar />
      <Toasts />
      <DialogHost />
    </div>
  );
}
