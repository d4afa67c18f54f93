// The live terminal sessions by UI pane id, so shortcuts and tab switches can focus a pane's terminal.
import type { TerminalSession } from './TerminalSession.js';

export const sessions = new Map<string, TerminalSession>();

/** Focus a pane's terminal once React has mounted it. */
export function focusTerminal(paneId: string | undefined): void {
  if (!paneId) return;
  requestAnimationFrame(() => sessions.get(paneId)?.focus());
}
