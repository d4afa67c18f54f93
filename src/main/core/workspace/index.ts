// The face of core/workspace: what other folders may import from it (docs/architecture.md).
export { workspaceMethods } from './methods.js';
export type { KeyValueStoreFactory } from './workspaceStore.js';
