// Session targets (quick connect): runtime records of provider `session` owned by one Core run, removed when that Core
// stops, and swept at the next start when it could not (it crashed or was killed).
import { SESSION_PROVIDER } from '../../../shared/targets.js';
import type { Registry } from './registry.js';

/**
 * Removes the session targets of every run but `keep` (none: all of them). Best effort: a record another process
 * changed meanwhile is left, and said to `log`.
 */
export async function endSessionTargets(
  registry: Registry,
  keep: string | undefined,
  log: (line: string) => void,
): Promise<void> {
  registry.refresh();
  const ended = registry.list().filter((r) => r.provider === SESSION_PROVIDER && r.owner_id !== keep);
  for (const r of ended) {
    await registry
      .remove({ provider: SESSION_PROVIDER, owner_id: r.owner_id, name: r.name })
      .catch((err: unknown) => log(`could not remove session target "${r.name}": ${(err as Error).message}`));
  }
}
