// The face of core/config: what other folders may import from it (docs/architecture.md).
export { ConfigStore } from './configStore.js';
export { schemaKeys } from './loadConfig.js';
