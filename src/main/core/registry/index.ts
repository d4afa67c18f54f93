// The face of core/registry: what other folders may import from it (docs/architecture.md).
export { defaultSchemaFor, type EntryResult, type RegisterRequest, Registry, type RegistryChange } from './registry.js';
export { checkSpec, keySchema } from './registryFile.js';
export { emptyRuntimeSource, type RuntimeRecord, type RuntimeSource } from './runtimeSource.js';
export { endSessionTargets } from './sessionTargets.js';
export { specFingerprint } from './specFingerprint.js';
