// What the window shows of a target: the registry's state, refined by the Core's health checks while it is active.
import type { TargetInfo } from '../shared/targets.js';

export type Shown = TargetInfo['state'] | 'checking' | 'reachable';

export function shownState(t: TargetInfo): Shown {
  if (t.state !== 'active') return t.state;
  return t.health?.status ?? 'active';
}
