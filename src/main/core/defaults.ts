// The parts every real Core gets (the live runtime registry, the window's layout store); tests may build a Core with
// fewer.
import { Registry, type RuntimeSource } from './registry/index.js';
import type { KeyValueStoreFactory } from './workspace/index.js';

/** Options for a full Core (a part of CoreOptions; typed here so that nothing below core.ts imports it). */
export function defaultCoreOptions(opts: { uiStore?: KeyValueStoreFactory } = {}): {
  runtime: (home: string) => RuntimeSource;
  uiStore?: KeyValueStoreFactory;
} {
  return {
    // The runtime registry (runtime-targets.json), followed live: fs.watch on the profile directory plus a 1 s stat
    // poll.
    runtime: (home) => new Registry(home, { watch: true }),
    ...(opts.uiStore ? { uiStore: opts.uiStore } : {}),
  };
}
