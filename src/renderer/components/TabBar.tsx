// The tab strip: titles from the program or `target: cwd`, rename by double-click, drag to reorder, pane count, a
// colour stripe; right-click (or Shift+F10) for the tab's menu.
import { useCallback, useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { useLayout, shortPath, tabPaneIds, tabTitle, tabTitleParts, type TabState } from '../store/layout.js';
import { focusTerminal } from '../terminal/sessions.js';
import { closeTab, openNewTab, renameRequests } from '../actions.js';
import { shortcutOf } from '../keyboard.js';
import { IconClose, IconPlus, IconTerminal } from './icons.js';
import { TabMenu, tabColorNames, type TabMenuAt } from './TabMenu.js';

const DRAG_TYPE = 'application/x-switchboard-tab';
const TAB_HINT = 'Double-click to rename · drag to move · right-click for more';

function RenameField({ tab, initial, done }: { tab: TabState; initial: string; done(): void }) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // After the frame in which the double-click's own clicks hand the keyboard back to the terminal.
    const frame = requestAnimationFrame(() => {
      input.current?.focus();
      input.current?.select();
    });
    return () => cancelAnimationFrame(frame);
  }, []);
  const finish = (commit: boolean): void => {
    if (commit) useLayout.getState().renameTab(tab.id, input.current?.value ?? '');
    done();
    focusTerminal(useLayout.getState().focusedPaneId);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'Enter') finish(true);
    else if (e.key === 'Escape') finish(false);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <input
      ref={input}
      className="tab__rename"
      aria-label="Tab name"
      defaultValue={initial}
      maxLength={128}
      onKeyDown={onKeyDown}
      onBlur={() => finish(true)}
    />
  );
}

function Tab({
  tab,
  index,
  active,
  openMenu,
}: {
  tab: TabState;
  index: number;
  active: boolean;
  openMenu(at: TabMenuAt): void;
}) {
  const title = useLayout((s) => tabTitle(s, tab));
  const lead = useLayout((s) => tabTitleParts(s, tab).lead);
  const path = useLayout((s) => tabTitleParts(s, tab).path);
  const count = tabPaneIds(tab).length;
  const [renaming, setRenaming] = useState(false);
  const [dropSide, setDropSide] = useState<'before' | 'after'>();

  useEffect(() => {
    const onRename = (e: Event): void => {
      if ((e as CustomEvent<string>).detail === tab.id) setRenaming(true);
    };
    renameRequests.addEventListener('rename', onRename);
    return () => renameRequests.removeEventListener('rename', onRename);
  }, [tab.id]);

  const side = (e: DragEvent<HTMLDivElement>): 'before' | 'after' => {
    const r = e.currentTarget.getBoundingClientRect();
    return e.clientX < r.left + r.width / 2 ? 'before' : 'after';
  };
  const onDrop = (e: DragEvent<HTMLDivElement>): void => {
    const dragged = e.dataTransfer.getData(DRAG_TYPE);
    setDropSide(undefined);
    if (!dragged || dragged === tab.id) return;
    e.preventDefault();
    const tabs = useLayout.getState().tabs;
    const from = tabs.findIndex((t) => t.id === dragged);
    let to = index + (side(e) === 'after' ? 1 : 0);
    if (from < to) to--;
    useLayout.getState().moveTab(dragged, to);
  };

  const colour = tab.color ? ` · ${tabColorNames[tab.color]}` : '';
  const tip = `${title}${colour}\n${TAB_HINT} · Ctrl+${Math.min(index + 1, 9)}`;
  return (
    // Presentation: in the tab list only the tab itself is an item (its close button is the mouse's, Delete the keys').
    // biome-ignore lint/a11y/noStaticElementInteractions: dragging to reorder is a mouse convenience
    <div
      className={[
        'tab',
        active && 'tab--active',
        dropSide && `tab--drop-${dropSide}`,
        tab.color && `tab-color--${tab.color}`,
      ]
        .filter(Boolean)
        .join(' ')}
      role="presentation"
      draggable={!renaming}
      onDragStart={(e) => {
        e.dataTransfer.setData(DRAG_TYPE, tab.id);
        e.dataTransfer.effectAllowed = 'move';
      }}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
        e.preventDefault();
        setDropSide(side(e));
      }}
      onDragLeave={() => setDropSide(undefined)}
      onDrop={onDrop}
      onContextMenu={(e) => {
        if (renaming) return;
        e.preventDefault();
        openMenu({ tabId: tab.id, x: e.clientX, y: e.clientY });
      }}
    >
      {tab.color && <span className="tab__stripe" aria-hidden="true" />}
      {renaming ? (
        <RenameField tab={tab} initial={title} done={() => setRenaming(false)} />
      ) : (
        <button
          type="button"
          role="tab"
          id={`tab-${tab.id}`}
          aria-selected={active}
          aria-controls={`tabpanel-${tab.id}`}
          className="tab__button"
          title={tip}
          onClick={() => {
            useLayout.getState().activateTab(tab.id);
            focusTerminal(useLayout.getState().focusedPaneId);
          }}
          onDoubleClick={() => setRenaming(true)}
          onKeyDown={(e) => {
            if (e.key === 'F2') {
              e.preventDefault();
              setRenaming(true);
            } else if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) {
              e.preventDefault();
              const r = e.currentTarget.getBoundingClientRect();
              openMenu({ tabId: tab.id, x: r.left, y: r.bottom, fromKeyboard: true });
            } else if (e.key === 'Delete') {
              e.preventDefault();
              closeTab(tab.id);
            }
          }}
        >
          <IconTerminal size={13} />
          {path ? (
            // The target stays whole; the path gives way from its start, so its last folder stays in sight.
            <span className="tab__title tab__title--parts">
              <span className="tab__lead">{lead}:</span>{' '}
              <span className="tab__path">
                <bdi dir="ltr">{shortPath(path)}</bdi>
              </span>
            </span>
          ) : (
            <span className="tab__title">{title}</span>
          )}
          {count > 1 && (
            <span className="tab__count" title={`${count} panes`}>
              {count}
              <span className="visually-hidden"> panes</span>
            </span>
          )}
        </button>
      )}
      <button
        type="button"
        className="icon-button tab__close"
        tabIndex={-1}
        aria-hidden="true"
        title="Close tab"
        onClick={() => closeTab(tab.id)}
      >
        <IconClose size={12} />
      </button>
    </div>
  );
}

export function TabBar() {
  const tabs = useLayout((s) => s.tabs);
  const active = useLayout((s) => s.activeTabId);
  const [menu, setMenu] = useState<TabMenuAt>();
  const closeMenu = useCallback(() => setMenu(undefined), []);
  return (
    <div className="tabbar">
      <div className="tabs" role="tablist" aria-label="Tabs">
        {tabs.map((t, i) => (
          <Tab key={t.id} tab={t} index={i} active={t.id === active} openMenu={setMenu} />
        ))}
      </div>
      {menu && <TabMenu at={menu} onClose={closeMenu} />}
      <button
        type="button"
        className="icon-button tabbar__new"
        aria-label="New tab"
        title={`New tab (${shortcutOf('newTab')})`}
        onClick={openNewTab}
      >
        <IconPlus />
      </button>
    </div>
  );
}
