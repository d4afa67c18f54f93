// The parts every real Core gets (runtime registry, tools, approvals …); tests may build a Core with fewer.
import type { CoreOptions } from './core.js';
import { Registry } from './registry/registry.js';
import { retireIdentities } from './registry/retireIdentities.js';
import { registryMethods } from './registry/registryMethods.js';
import { workspaceStore, type KeyValueStoreFactory } from './sessions/workspaceStore.js';
import { agentToolsExtension } from './dispatch/tools/agentToolsExtension.js';

/** Options for a full Core; each feature module adds itself here. */
export function defaultCoreOptions(opts: { uiStore?: KeyValueStoreFactory } = {}): CoreOptions {
  return {
    // The runtime registry (runtime-targets.json), followed live: fs.watch on the profile directory plus a 1 s stat poll.
    runtime: (home) => new Registry(home, { watch: true }),
    extensions: [agentToolsExtension, retireIdentities, registryMethods, workspaceStore(opts.uiStore)],
  };
}
