// The face of core/registry: what other folders may import from it (docs/architecture.md).
export { defaultSchemaFor, Registry } from './registry.js';
export type { EntryResult, RegisterRequest, RegistryChange } from './registryChanges.js';
export { checkSpec, keySchema } from './registryFile.js';
export { emptyRuntimeSource, type RuntimeRecord, type RuntimeSource } from './runtimeSource.js';
export { endSessionTargets } from './sessionTargets.js';
export { specFingerprint } from './specFingerprint.js';
