// A tab's right-click menu (also Shift+F10 or the menu key on the tab): rename, duplicate, a colour, close. Arrow keys
// move, Enter runs, Escape closes.
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { TabColor } from '../../shared/api.js';
import { useLayout } from '../store/layout.js';
import { closeTab, duplicateTab, renameRequests } from '../actions.js';
import { focusTerminal } from '../terminal/sessions.js';
import { useMenuDismiss } from './useMenuDismiss.js';

export interface TabMenuAt {
  tabId: string;
  x: number;
  y: number;
  /** Opened from the keyboard (Shift+F10 on the tab): Escape gives the keyboard back to the tab. */
  fromKeyboard?: boolean;
}

export const tabColorNames: Record<TabColor, string> = {
  red: 'Red',
  orange: 'Orange',
  yellow: 'Yellow',
  green: 'Green',
  blue: 'Blue',
  purple: 'Purple',
};

export function TabMenu({ at, onClose }: { at: TabMenuAt; onClose(): void }) {
  const menu = useRef<HTMLDivElement>(null);
  const color = useLayout((s) => s.tabs.find((t) => t.id === at.tabId)?.color);

  useEffect(() => {
    menu.current?.querySelector<HTMLElement>('[role^="menuitem"]')?.focus();
  }, []);
  useMenuDismiss(menu, true, onClose);

  /** Closes the menu, then runs the choice; the terminal gets the keyboard back unless the choice takes it. */
  const choose = (run: () => void, refocus = true): void => {
    onClose();
    run();
    if (refocus) focusTerminal(useLayout.getState().focusedPaneId);
  };
  const items: Array<{ key: string; label: string; run(): void; refocus?: boolean }> = [
    {
      key: 'rename',
      label: 'Rename tab',
      refocus: false,
      run: () => {
        useLayout.getState().activateTab(at.tabId);
        renameRequests.dispatchEvent(new CustomEvent('rename', { detail: at.tabId }));
      },
    },
    { key: 'duplicate', label: 'Duplicate tab', refocus: false, run: () => duplicateTab(at.tabId) },
  ];
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const list = [...(menu.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]') ?? [])];
    const i = list.indexOf(document.activeElement as HTMLElement);
    if ((e.key === 'Escape' || e.key === 'Tab') && at.fromKeyboard) {
      onClose();
      document.getElementById(`tab-${at.tabId}`)?.focus();
    } else if (e.key === 'Escape' || e.key === 'Tab') choose(() => undefined);
    else if (e.key === 'ArrowDown') list[(i + 1) % list.length]?.focus();
    else if (e.key === 'ArrowUp') list[(i - 1 + list.length) % list.length]?.focus();
    else if (e.key === 'Home') list[0]?.focus();
    else if (e.key === 'End') list.at(-1)?.focus();
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  const setColor = (c: TabColor | undefined): void => choose(() => useLayout.getState().setTabColor(at.tabId, c));
  // Kept inside the window.
  const left = Math.max(4, Math.min(at.x, window.innerWidth - 210));
  const top = Math.max(4, Math.min(at.y, window.innerHeight - 330));
  return (
    <div className="menu" role="menu" aria-label="Tab" ref={menu} style={{ left, top }} onKeyDown={onKeyDown}>
      {items.map((item) => (
        <button
          key={item.key}
          type="button"
          role="menuitem"
          className="menu__item"
          onClick={() => choose(item.run, item.refocus)}
        >
          <span>{item.label}</span>
        </button>
      ))}
      <hr className="menu__separator" />
      <fieldset className="menu__group" aria-label="Tab colour">
        <div className="menu__heading" aria-hidden="true">
          Colour
        </div>
        {[undefined, ...TabColor.options].map((c) => (
          <button
            key={c ?? 'none'}
            type="button"
            role="menuitemradio"
            aria-checked={color === c}
            className="menu__item"
            onClick={() => setColor(c)}
          >
            <span className="menu__color">
              <span className={`tab-swatch ${c ? `tab-color--${c}` : 'tab-swatch--none'}`} aria-hidden="true" />
              {c ? tabColorNames[c] : 'No colour'}
            </span>
          </button>
        ))}
      </fieldset>
      <hr className="menu__separator" />
      <button
        type="button"
        role="menuitem"
        className="menu__item"
        onClick={() => choose(() => closeTab(at.tabId), false)}
      >
        <span>Close tab</span>
      </button>
    </div>
  );
}
