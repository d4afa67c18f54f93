// Desktop notifications for command approvals that arrive while the window is in the background (the web
// Notification API: the browser's under `serve`, Electron's native ones in its window). Clicking one brings the window
// up.
import type { PendingApproval } from '../shared/approvals.js';
import { redact } from '../shared/redact.js';
import { useApprovals } from './store/approvals.js';

const shown = new Map<string, Notification>();

function supported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

/** What a notice says: redacted, as a notice shows on a lock screen and stays in the system's notification list. */
function noticeBody(a: PendingApproval): string {
  const command = redact(a.command ?? '');
  const what = command.length > 140 ? `${command.slice(0, 139)}…` : command;
  const why = a.reasons?.[0] ? `\n${redact(a.reasons[0])}` : '';
  return `${a.client ?? 'An agent'} on ${a.execution_target}: ${what}${why}`;
}

function notify(a: PendingApproval): void {
  const n = new Notification('Approve command', {
    body: noticeBody(a),
    tag: `switchboard-approval-${a.id}`,
    requireInteraction: true,
  });
  n.onclick = () => {
    window.focus();
    n.close();
  };
  shown.set(a.id, n);
}

/** Ids already considered, so a request first seen while the window had focus does not notify later on. */
const seen = new Set<string>();

/**
 * Checks a new pending list: notifies for each command approval not seen before, closes notices whose request is gone.
 */
function onPending(list: readonly PendingApproval[]): void {
  const ids = new Set(list.map((a) => a.id));
  for (const [id, n] of shown) {
    if (ids.has(id)) continue;
    n.close();
    shown.delete(id);
  }
  const fresh = list.filter((a) => a.kind === 'command' && !seen.has(a.id));
  for (const a of fresh) seen.add(a.id);
  if (fresh.length === 0 || document.hasFocus() || Notification.permission !== 'granted') return;
  for (const a of fresh) notify(a);
}

/** Whether the dialog should offer to turn notifications on (the browser has not been asked yet). */
export function canAskForNotices(): boolean {
  return supported() && Notification.permission === 'default';
}

/** Asked from a click in the dialog: browsers only prompt on a person's gesture. */
export function askForNotices(): Promise<NotificationPermission> {
  return Notification.requestPermission();
}

export function startApprovalNotices(): () => void {
  if (!supported()) return () => undefined;
  return useApprovals.subscribe((s, prev) => {
    if (s.pending !== prev.pending) onPending(s.pending);
  });
}
