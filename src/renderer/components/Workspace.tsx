// Every tab's panes stay mounted (hidden when inactive) so terminals keep their screen and scrollback across tab
// switches. Panes are laid out flat, by the rectangles of the tab's split tree, so a split never remounts (and so never
// kills) a terminal.
import { useMemo, type CSSProperties } from 'react';
import { useLayout, type TabState } from '../store/layout.js';
import { useTargets } from '../store/targets.js';
import { dividers, paneIdsOf, paneRects, type Rect } from '../store/layoutTree.js';
import { PaneView } from './PaneView.js';
import { PaneDivider } from './PaneDivider.js';
import { openNewTab } from '../actions.js';
import { shortcutOf } from '../keyboard.js';
import { IconTerminal } from './icons.js';
import { BroadcastBar } from './BroadcastBar.js';

const pct = (n: number): string => `${(n * 100).toFixed(4)}%`;

function placement(r: Rect): CSSProperties {
  return { left: pct(r.x), top: pct(r.y), width: pct(r.w), height: pct(r.h) };
}

function TabPanel({ tab, active }: { tab: TabState; active: boolean }) {
  const focused = useLayout((s) => s.focusedPaneId);
  const order = useMemo(() => paneIdsOf(tab.root), [tab.root]);
  const rects = useMemo(() => paneRects(tab.root), [tab.root]);
  const lines = useMemo(() => (tab.zoomed ? [] : dividers(tab.root)), [tab.root, tab.zoomed]);
  const full: Rect = { x: 0, y: 0, w: 1, h: 1 };
  return (
    <div
      className="tabpanel"
      role="tabpanel"
      id={`tabpanel-${tab.id}`}
      aria-labelledby={`tab-${tab.id}`}
      hidden={!active}
      data-region="panes"
    >
      {order.map((id, i) => {
        const r = tab.zoomed ? (tab.zoomed === id ? full : undefined) : rects.get(id);
        return (
          <PaneView
            key={id}
            paneId={id}
            index={i}
            count={order.length}
            zoomed={tab.zoomed === id}
            focused={active && focused === id}
            style={r ? placement(r) : { display: 'none' }}
            edges={{ left: (r?.x ?? 0) > 0, top: (r?.y ?? 0) > 0 }}
          />
        );
      })}
      {lines.map((d) => (
        <PaneDivider key={d.splitId} tabId={tab.id} divider={d} />
      ))}
    </div>
  );
}

export function Workspace() {
  const tabs = useLayout((s) => s.tabs);
  const active = useLayout((s) => s.activeTabId);
  const hasTargets = useTargets((s) => s.list.length > 0);
  const loaded = useTargets((s) => s.loaded);
  return (
    <section className="workspace" aria-label="Terminals">
      <BroadcastBar />
      {tabs.map((t) => (
        <TabPanel key={t.id} tab={t} active={t.id === active} />
      ))}
      {tabs.length === 0 && loaded && (
        <div className="workspace__empty">
          <IconTerminal size={36} />
          {hasTargets ? (
            <>
              <p>No terminals open.</p>
              <button type="button" className="button" onClick={openNewTab}>
                New tab <kbd>{shortcutOf('newTab')}</kbd>
              </button>
            </>
          ) : (
            <p>Add a target to config.yaml to open a terminal.</p>
          )}
        </div>
      )}
    </section>
  );
}
