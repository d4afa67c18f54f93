// F6 / Shift+F6: the keyboard's way between the window's regions, as in VS Code and browsers.
import { useLayout } from './store/layout.js';
import { sessions } from './terminal/sessions.js';

export const regionOrder = ['sidebar', 'panes', 'processes', 'activity'] as const;
export type Region = (typeof regionOrder)[number];

function regionEl(name: Region): HTMLElement | null {
  return document.querySelector<HTMLElement>(`[data-region="${name}"]`);
}

function focusRegion(name: Region): boolean {
  if (name === 'panes') {
    const id = useLayout.getState().focusedPaneId;
    const session = id ? sessions.get(id) : undefined;
    if (!session) return false;
    session.focus();
    return true;
  }
  const el = regionEl(name);
  if (!el || el.offsetParent === null) return false;
  el.focus();
  return true;
}

export function cycleRegion(delta: 1 | -1): void {
  const here = (document.activeElement?.closest('[data-region]')?.getAttribute('data-region') ?? '') as Region;
  const at = regionOrder.indexOf(here);
  for (let i = 1; i <= regionOrder.length; i++) {
    const idx = ((at < 0 ? (delta > 0 ? -1 : 0) : at) + delta * i + regionOrder.length * 2) % regionOrder.length;
    if (focusRegion(regionOrder[idx]!)) return;
  }
}
