// The terminal's right-click menu: Copy, Paste, Clear, Split right/down, Find. Arrow keys move, Enter runs, Escape
// closes.
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useUi } from '../store/ui.js';
import { sessions } from '../terminal/sessions.js';
import { runCommand } from '../actions.js';
import { commands, shortcutOf, type CommandId } from '../keyboard.js';
import { useMenuDismiss } from './useMenuDismiss.js';

const items: CommandId[] = ['copy', 'paste', 'clear', 'splitRight', 'splitDown', 'find'];

export function ContextMenu() {
  const at = useUi((s) => s.contextMenu);
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (at) menu.current?.querySelector<HTMLElement>('[role="menuitem"]:not([disabled])')?.focus();
  }, [at]);
  useMenuDismiss(menu, at !== undefined, () => useUi.getState().setContextMenu(undefined));

  if (!at) return null;
  const session = sessions.get(at.paneId);
  const hasSelection = session?.term.hasSelection() ?? false;
  const close = (refocus: boolean): void => {
    useUi.getState().setContextMenu(undefined);
    if (refocus) session?.focus();
  };
  const choose = (id: CommandId): void => {
    close(id !== 'find');
    runCommand(id, at.paneId);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const list = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])') ?? [])];
    const i = list.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') close(true);
    else if (e.key === 'ArrowDown') list[(i + 1) % list.length]?.focus();
    else if (e.key === 'ArrowUp') list[(i - 1 + list.length) % list.length]?.focus();
    else if (e.key === 'Tab') close(true);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  // Kept inside the window.
  const left = Math.min(at.x, window.innerWidth - 220);
  const top = Math.min(at.y, window.innerHeight - 230);
  return (
    <div className="menu" role="menu" aria-label="Terminal" ref={menu} style={{ left, top }} onKeyDown={onKeyDown}>
      {items.map((id) => (
        <button
          key={id}
          type="button"
          role="menuitem"
          className="menu__item"
          disabled={id === 'copy' && !hasSelection}
          onClick={() => choose(id)}
        >
          <span>{commands[id].title}</span>
          {shortcutOf(id) && <kbd>{shortcutOf(id)}</kbd>}
        </button>
      ))}
    </div>
  );
}
