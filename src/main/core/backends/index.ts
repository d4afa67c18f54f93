// The face of core/backends: what other folders may import from it (docs/architecture.md).
export { backendInfo, backendMethods } from './backendMethods.js';
export { builtinSpec, builtinSpecs, builtinSpecSchemas, secretReferenceKeys } from './builtinSpecs.js';
export { profileLabel, shortHash } from './docker/containerConfig.js';
export { DockerSpec } from './docker/fields.js';
export { localSpec } from './local/fields.js';
export {
  type BackendDeclaration,
  type BackendProvider,
  type BackgroundHandle,
  type Environment,
  type ExecOptions,
  type ExecResult,
  type FileStat,
  flagsOf,
  type OrphanInfo,
  type ProviderContext,
  type ShellChannel,
  type TargetSnapshot,
  withFlagDefaults,
} from './provider.js';
export { assertWithinReadLimit } from './readableFile.js';
export { BoundedCapture } from './shell/boundedCapture.js';
export { builtinWithheld, commandEnv, envNamePattern, envRules } from './shell/commandEnv.js';
export { execHome, execReadFile, execStat, execWriteFile, type RawExec } from './shell/execFileOps.js';
export { execWrapped, type ShellRun, stopOnTimeoutOrAbort } from './shell/execWrapped.js';
export { SecretExports } from './shell/secretExports.js';
export { shellQuote } from './shell/shellWrap.js';
