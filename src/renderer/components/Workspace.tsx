// Every tab's panes stay mounted (hidden when inactive) so terminals keep their screen and scrollback across tab switches.
import { useLayout } from '../store/layout.js';
import { useTargets } from '../store/targets.js';
import { PaneView } from './PaneView.js';
import { openNewTab } from './TabBar.js';
import { shortcutLabels } from '../keyboard.js';
import { IconTerminal } from './icons.js';

function TabPanel({ tabId, paneIds, active }: { tabId: string; paneIds: string[]; active: boolean }) {
  const focused = useLayout((s) => s.focusedPaneId);
  return (
    <div
      className="tabpanel"
      role="tabpanel"
      id={`tabpanel-${tabId}`}
      aria-labelledby={`tab-${tabId}`}
      hidden={!active}
    >
      {paneIds.map((id, i) => <PaneView key={id} paneId={id} index={i} focused={active && focused === id} />)}
    </div>
  );
}

export function Workspace() {
  const tabs = useLayout((s) => s.tabs);
  const active = useLayout((s) => s.activeTabId);
  const hasTargets = useTargets((s) => s.list.length > 0);
  const loaded = useTargets((s) => s.loaded);
  return (
    <main className="workspace">
      {tabs.map((t) => <TabPanel key={t.id} tabId={t.id} paneIds={t.paneIds} active={t.id === active} />)}
      {tabs.length === 0 && loaded && (
        <div className="workspace__empty">
          <IconTerminal size={36} />
          {hasTargets ? (
            <>
              <p>No terminals open.</p>
              <button type="button" className="button" onClick={openNewTab}>New tab <kbd>{shortcutLabels.newTab}</kbd></button>
            </>
          ) : (
            <p>Add a target to config.yaml to open a terminal.</p>
          )}
        </div>
      )}
    </main>
  );
}
