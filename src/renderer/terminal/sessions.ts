// The live terminal sessions by UI pane id, so shortcuts and tab switches can focus a pane's terminal.
import type { TerminalSession } from './TerminalSession.js';

export const sessions = new Map<string, TerminalSession>();

/**
 * Keys typed between a request to focus a pane (a new tab, Ctrl+Tab, a split) and its terminal taking the keyboard a
 * frame or more later: without this they went to the terminal left behind, or nowhere (`echo x` ran as `o x`).
 */
let transit: { paneId: string; keys: string; frames: number } | undefined;

/** What a key sends to a shell when no terminal has it yet; undefined for keys left to whatever takes them. */
function keyData(e: KeyboardEvent): string | undefined {
  if (e.ctrlKey || e.altKey || e.metaKey) return undefined;
  if (e.key.length === 1) return e.key;
  return ({ Enter: '\r', Backspace: '\x7f', Tab: '\t' } as Record<string, string>)[e.key];
}

function onTransitKey(e: KeyboardEvent): void {
  if (!transit) return;
  const active = document.activeElement;
  if (sessions.get(transit.paneId)?.term.element?.contains(active)) return;
  // Only keys meant for a terminal: a field (a dialog, the rename box, the palette) keeps its own.
  if (active && active !== document.body && !active.closest('.xterm')) return;
  const data = keyData(e);
  if (data === undefined) return;
  e.preventDefault();
  e.stopImmediatePropagation();
  transit.keys += data;
}

function settleTransit(): void {
  const t = transit;
  if (!t) return;
  const session = sessions.get(t.paneId);
  // A new tab's terminal may need a few frames to exist; after a second the keys are given up.
  if (!session && ++t.frames < 60) return void requestAnimationFrame(settleTransit);
  transit = undefined;
  window.removeEventListener('keydown', onTransitKey, true);
  session?.focus();
  if (session && t.keys) session.typeIn(t.keys);
}

/** Focus a pane's terminal once React has mounted it; keys typed meanwhile are its own. */
export function focusTerminal(paneId: string | undefined): void {
  if (!paneId) return;
  if (transit) transit.paneId = paneId;
  else {
    transit = { paneId, keys: '', frames: 0 };
    window.addEventListener('keydown', onTransitKey, true);
    requestAnimationFrame(settleTransit);
  }
}
