// The tab strip: one tab per group of side-by-side panes, titled by the targets in it.
import { useLayout } from '../store/layout.js';
import { useTargets, preferredTarget } from '../store/targets.js';
import { focusTerminal } from '../terminal/sessions.js';
import { shortcutLabels } from '../keyboard.js';
import { IconClose, IconPlus, IconTerminal } from './icons.js';

function TabTitle({ paneIds }: { paneIds: string[] }) {
  const title = useLayout((s) => paneIds.map((id) => s.panes[id]?.target ?? '').join(' · '));
  return <span className="tab__title">{title}</span>;
}

export function openNewTab(): void {
  const s = useLayout.getState();
  const focused = s.focusedPaneId ? s.panes[s.focusedPaneId]?.target : undefined;
  const target = focused ?? preferredTarget(useTargets.getState().list);
  if (target) focusTerminal(s.newTab(target));
}

export function TabBar() {
  const tabs = useLayout((s) => s.tabs);
  const active = useLayout((s) => s.activeTabId);
  return (
    <div className="tabbar">
      <div className="tabs" role="tablist" aria-label="Tabs">
        {tabs.map((t, i) => (
          <div key={t.id} className={`tab${t.id === active ? ' tab--active' : ''}`}>
            <button
              type="button"
              role="tab"
              id={`tab-${t.id}`}
              aria-selected={t.id === active}
              aria-controls={`tabpanel-${t.id}`}
              className="tab__button"
              onClick={() => {
                useLayout.getState().activateTab(t.id);
                focusTerminal(useLayout.getState().focusedPaneId);
              }}
            >
              <IconTerminal size={13} />
              <TabTitle paneIds={t.paneIds} />
              {t.paneIds.length > 1 && <span className="tab__count">{t.paneIds.length}</span>}
            </button>
            <button type="button" className="icon-button tab__close" aria-label={`Close tab ${i + 1}`} title="Close tab" onClick={() => {
              useLayout.getState().closeTab(t.id);
              focusTerminal(useLayout.getState().focusedPaneId);
            }}>
              <IconClose size={12} />
            </button>
          </div>
        ))}
      </div>
      <button type="button" className="icon-button tabbar__new" aria-label="New tab" title={`New tab (${shortcutLabels.newTab})`} onClick={openNewTab}>
        <IconPlus />
      </button>
    </div>
  );
}
