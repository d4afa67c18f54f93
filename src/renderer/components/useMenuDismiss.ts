// A menu's dismissal, shared by the terminal's and the tab's menus: a press outside it, or the window losing focus.
import { useEffect, useRef, type RefObject } from 'react';

/** While `open`, closes the menu on a mouse press outside it or when the window loses focus. */
export function useMenuDismiss(menu: RefObject<HTMLElement | null>, open: boolean, close: () => void): void {
  // The latest close, without re-adding the listeners each render.
  const onClose = useRef(close);
  onClose.current = close;
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent): void => {
      if (!menu.current?.contains(e.target as Node)) onClose.current();
    };
    const blur = (): void => onClose.current();
    window.addEventListener('mousedown', away, true);
    window.addEventListener('blur', blur);
    return () => {
      window.removeEventListener('mousedown', away, true);
      window.removeEventListener('blur', blur);
    };
  }, [menu, open]);
}
