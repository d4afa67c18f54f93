// What the window shows of a target: the registry's state, refined by the Core's health checks while it is active.
import type { TargetInfo } from '../shared/targets.js';

export type Shown = TargetInfo['state'] | 'checking' | 'unchecked' | 'reachable' | 'disconnected';

/** `offline`: the page has lost the Core; what it last heard of a target says nothing of now. */
export function shownState(t: TargetInfo, offline = false): Shown {
  if (offline) return 'disconnected';
  if (t.state !== 'active') return t.state;
  return t.health?.status ?? 'active';
}
