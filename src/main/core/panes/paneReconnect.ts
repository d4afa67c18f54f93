// When a pane's connection drops: how long to wait before each attempt, which failures are worth another, and the
// lines the pane's scrollback gets. Pure; the loop itself is in panes.ts.
import type { ErrorCode } from '../../../shared/errors.js';
import { backoffMs } from '../platform/index.js';

/** Waits before attempts 1, 2, 3 …: doubling from 2 s, then every 30 s for as long as the host stays down. */
export const reconnectBackoff = { firstMs: 2000, maxMs: 30_000 } as const;

/** The wait before attempt `attempt` (1-based). */
export function reconnectDelayMs(attempt: number): number {
  return backoffMs(attempt - 1, reconnectBackoff.firstMs, reconnectBackoff.maxMs);
}

/**
 * Whether a failed attempt is worth another. A host that is down, or a network that is slow, may come back; a host
 * key that changed, a login the server refused or a target that is gone will not by waiting — the pane ends and says
 * why, rather than knocking on a door that said no (and, for a changed key, rather than retrying into a possible
 * impostor).
 */
export function retriesAfter(code: ErrorCode): boolean {
  return code === 'target_unreachable' || code === 'timeout';
}

/**
 * Bright black, not SGR 2 (faint): every scheme's palette keeps it readable, and a terminal's minimum contrast lifts
 * faint text only half as far (the line was hard to read on Solarized Light).
 */
const MUTED = '\x1b[90m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

/** `14:02`, in the Core's local time (the clock the person reads beside the window). */
export function clockTime(at: Date): string {
  return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
}

/** The line written into the pane when its connection drops, on a line of its own. */
export function lostLine(target: string, at: Date): string {
  return `\r\n${YELLOW}— connection to ${target} lost at ${clockTime(at)}; reconnecting —${RESET}\r\n`;
}

/** The line written into the pane above the new shell's first output (the lost line ended the one before). */
export function reconnectedLine(target: string, at: Date): string {
  return `\r${MUTED}— reconnected to ${target} at ${clockTime(at)} —${RESET}\r\n`;
}
