// activity.list: the Activity feed's recent entries.
import type { Handlers } from '../platform/index.js';
import type { ActivityLog } from './activityLog.js';

export function activityMethods(deps: { activity: ActivityLog }) {
  return {
    'activity.list': async ({ limit }) => deps.activity.list(limit),
  } satisfies Partial<Handlers>;
}
