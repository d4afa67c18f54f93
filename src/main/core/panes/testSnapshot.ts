// A target snapshot for pane tests: only what Panes reads of it (name, generation, identity, streams).
import type { TargetSnapshot } from '../backends/index.js';

export function paneTestSnapshot(name: string, generation = 'g'): TargetSnapshot {
  return {
    name,
    generation,
    identity: `${name}#${generation}`,
    flags: { supports_streams: true },
  } as unknown as TargetSnapshot;
}
