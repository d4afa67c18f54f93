// The parts every real Core gets (runtime registry, tools, approvals …); tests may build a Core with fewer.
import type { CoreOptions } from './core.js';

/** Options for a full Core; each feature module adds itself here. */
export function defaultCoreOptions(): CoreOptions {
  return {
    extensions: [],
  };
}
