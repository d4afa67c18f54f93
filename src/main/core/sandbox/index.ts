// The face of core/sandbox: what other folders may import from it (docs/architecture.md).
export {
  namespaceGroupScript,
  namespaceKillScript,
  parseFacts,
  type RemoteFacts,
  RemoteSandbox,
} from './remoteSandbox.js';
export { remoteSandboxInfo } from './remoteSandboxInfo.js';
export { Sandbox, sandboxInfo, sandboxLine } from './sandbox.js';
export { sandboxAvailability } from './sandboxAvailability.js';
export { SandboxFiles } from './sandboxFiles.js';
export { sandboxNote } from './sandboxNote.js';
export { expandPath, mountSignature } from './sandboxPolicy.js';
export { specWeakening, weakeningSummary } from './sandboxWeakening.js';
