// The window: Targets sidebar | tabs of split terminal panes over a dock with Processes and Activity.
import { useEffect } from 'react';
import { Sidebar } from './components/Sidebar.js';
import { TabBar } from './components/TabBar.js';
import { Workspace } from './components/Workspace.js';
import { ProcessesPanel } from './components/ProcessesPanel.js';
import { ActivityFeed } from './components/ActivityFeed.js';
import { Toasts } from './components/Toasts.js';
import { StatusBar } from './components/StatusBar.js';
import { ConnectionBanner } from './components/ConnectionBanner.js';
import { DialogHost } from './components/dialogs/DialogHost.js';
import {
  dockHeight as dockRule,
  ResizeHandle,
  sidebarWidth as sidebarRule,
  useRememberedSize,
} from './components/ResizeHandle.js';
import { CommandPalette } from './components/CommandPalette.js';
import { SettingsDialog } from './components/SettingsDialog.js';
import { ContextMenu } from './components/ContextMenu.js';
import { useLayout } from './store/layout.js';
import { useTargets } from './store/targets.js';
import { useUi } from './store/ui.js';
import { useSettings } from './store/settings.js';
import { resolvedScheme, useColorScheme } from './store/colorScheme.js';
import { isTerminalSchemeId, terminalSchemes } from './terminal/colorSchemes.js';
import { restoreWorkspace } from './store/workspacePersist.js';
import { startSync } from './store/sync.js';
import { useApprovals } from './store/approvals.js';
import { startApprovalNotices } from './approvalNotices.js';
import { startAnnouncer } from './announcer.js';
import { LiveRegion } from './components/LiveRegion.js';
import { actionForKey } from './keyboard.js';
import { runCommand } from './actions.js';
import { personPage } from './client/personPage.js';
import { LINK_SPENT } from '../shared/personPage.js';

/** Once the targets are known: the last session's tabs and panes, or one terminal on the preferred target. */
function useFirstTab(): void {
  const loaded = useTargets((s) => s.loaded);
  useEffect(() => {
    if (loaded) void restoreWorkspace();
  }, [loaded]);
}

/**
 * The window title names the focused pane's target, as terminal apps do, and counts approvals waiting (seen from the
 * taskbar). A component of its own, so a title change does not re-render the whole window.
 */
function WindowTitle(): null {
  const target = useLayout((s) => (s.focusedPaneId ? s.panes[s.focusedPaneId]?.target : undefined));
  const waiting = useApprovals((s) => s.pending.length);
  useEffect(() => {
    const base = target ? `${target} — Switchboard` : 'Switchboard';
    document.title = waiting > 0 ? `(${waiting}) Approval needed — ${base}` : base;
  }, [target, waiting]);
  return null;
}

/**
 * Light, dark or high contrast for the whole window, from Settings or the system; the terminals' colour scheme, when
 * one is chosen, also paints the space around them.
 */
function useThemeAttribute(): void {
  const theme = useSettings((s) => s.theme);
  const scheme = useSettings((s) => s.terminalScheme);
  // Read again whenever the system's preferences change (the selector runs on every change of that store).
  const windowScheme = useColorScheme(() => resolvedScheme(theme));
  useEffect(() => {
    document.documentElement.dataset.theme = windowScheme;
  }, [windowScheme]);
  useEffect(() => {
    const root = document.documentElement.style;
    if (isTerminalSchemeId(scheme)) root.setProperty('--term-bg', terminalSchemes[scheme].background);
    else root.removeProperty('--term-bg');
  }, [scheme]);
}

/** A sentence with `code` spans (a command the person runs) set as code. */
function withCode(text: string) {
  return text.split('`').map((part, i) => (i % 2 ? <code key={part}>{part}</code> : part));
}

/** Why a page opened without a link cannot act, and how to open the window as the person. */
function NoLink() {
  return (
    <>
      <p>
        It was opened without your person link, so it cannot open terminals, change anything or approve commands: that
        link is what tells Switchboard a person is here, not an agent that found the address.
      </p>
      <p>
        Open the link <code>switchboard serve</code> showed on its terminal, or run <code>switchboard open</code> in a
        terminal of your own for a new one.
      </p>
    </>
  );
}

/** A link that made nothing of the page (most often already used, or expired): one line saying so, and why. */
function LinkProblem({ problem }: { problem: string }) {
  return (
    <>
      <p className="not-yours__problem">{withCode(problem)}</p>
      {problem === LINK_SPENT && (
        <p>
          A link works once, so that a copy of it (in a browser's history, say) lets no one else in. Until you open a
          new one, this page cannot open terminals, change anything or approve commands.
        </p>
      )}
    </>
  );
}

/**
 * A page opened without the person link (or from one already used): it may not open terminals, change anything or
 * approve, so it shows none of that (each would only be refused) and says how to open the window as the person.
 */
function NotYourWindow({ problem }: { problem: string | undefined }) {
  return (
    <main className="not-yours">
      <div className="not-yours__card" role="alert" aria-labelledby="not-yours-title">
        <h1 id="not-yours-title">This page is not your window</h1>
        {problem ? <LinkProblem problem={problem} /> : <NoLink />}
      </div>
    </main>
  );
}

export function App() {
  const page = personPage();
  return page.person ? <PersonWindow /> : <NotYourWindow problem={page.problem} />;
}

function PersonWindow() {
  useEffect(() => startSync(), []);
  useEffect(() => startApprovalNotices(), []);
  useEffect(() => startAnnouncer(), []);
  useFirstTab();
  useThemeAttribute();
  const [dockHeight, setDockHeight] = useRememberedSize(dockRule);
  const [sidebarWidth, setSidebarWidth] = useRememberedSize(sidebarRule);
  const collapsed = useUi((s) => s.sidebarCollapsed);
  useEffect(() => {
    // Capture phase: the shortcut wins over xterm's own key handling.
    const onKey = (e: KeyboardEvent): void => {
      const inTerminal = e.target instanceof Element && e.target.closest('.xterm') !== null;
      const action = actionForKey(e, inTerminal);
      if (!action) return;
      // A dialog owns the keyboard while it is open: no tab opens or pane closes behind it.
      if (document.querySelector('[role="dialog"], [role="alertdialog"]')) return;
      e.preventDefault();
      e.stopPropagation();
      runCommand(action);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);

  return (
    <div
      className={`app${collapsed ? ' app--collapsed' : ''}`}
      style={collapsed ? undefined : { ['--sidebar-w' as string]: `${sidebarWidth}px` }}
    >
      <Sidebar />
      {/* Everything but the sidebar and the status line is in <main>, the splitter on the sidebar's edge too (it is
          placed against the frame, not the main column). */}
      <main className="main">
        <h1 className="visually-hidden">Switchboard</h1>
        {!collapsed && (
          <ResizeHandle
            rule={sidebarRule}
            size={sidebarWidth}
            onChange={setSidebarWidth}
            along="column"
            label="Resize the sidebar"
            className="sidebar-splitter"
          />
        )}
        <ConnectionBanner />
        <TabBar />
        <Workspace />
        <ResizeHandle
          rule={dockRule}
          size={dockHeight}
          onChange={setDockHeight}
          along="row"
          label="Resize panels"
          className="dock-splitter"
        />
        <div className="dock" style={{ height: dockHeight }}>
          <ProcessesPanel />
          <ActivityFeed />
        </div>
      </main>
      <StatusBar />
      <Toasts />
      <ContextMenu />
      <CommandPalette />
      <SettingsDialog />
      <DialogHost />
      <WindowTitle />
      <LiveRegion />
    </div>
  );
}
