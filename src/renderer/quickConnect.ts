// Quick connect from the palette: a session target for `user@host:port` (the one already made for it this session,
// else a new one) and a new tab on it; the host-key dialog follows from the pane's first connection, as for any target.
import { quickConnectName, type QuickConnect } from '../shared/quickConnect.js';
import { SESSION_PROVIDER } from '../shared/targets.js';
import { core } from './client/core.js';
import { useLayout } from './store/layout.js';
import { useTargets } from './store/targets.js';
import { toastError } from './store/toasts.js';
import { focusTerminal } from './terminal/sessions.js';

/** Whether two specs say the same (a session target made for this destination before: no twin is made). */
export function sameSpec(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => a[k] === b[k]);
}

export async function quickConnect(q: QuickConnect): Promise<void> {
  try {
    const spec = await core.call('targets.quickSpec', q);
    const list = useTargets.getState().list;
    let name = list.find((t) => t.provider === SESSION_PROVIDER && sameSpec(t.spec, spec))?.name;
    if (!name) {
      name = quickConnectName(q, new Set(list.map((t) => t.name)));
      await core.call('targets.register', { name, spec, session: true });
    }
    focusTerminal(useLayout.getState().newTab(name));
  } catch (err) {
    toastError(err);
  }
}
