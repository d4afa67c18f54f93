// The face of core/platform: what other folders may import from it (docs/architecture.md).
export { afterLargeRequest, afterWork } from './afterLargeRequest.js';
export {
  atomicWrite,
  atomicWriteSync,
  fsyncDir,
  refuseSymlink,
  removeLeftoverTemps,
  WriteFailure,
} from './atomicWrite.js';
export { backoffMs } from './backoff.js';
export { builtFile } from './builtFile.js';
export { didYouMean } from './didYouMean.js';
export {
  END_GRACE_MS,
  endGroup,
  endGroupScript,
  endsSettled,
  GENTLE_SIGNAL_NAMES,
  GENTLE_SIGNALS,
  type GentleSignalName,
  sendSignal,
  tracked,
  untilGone,
} from './endGently.js';
export type { FileStat } from './fileStat.js';
export {
  asPerson,
  type CallContext,
  composeHandlers,
  type ConnectionScope,
  detachedConnection,
  type Handlers,
} from './handlers.js';
export { prepareHome, switchboardHome } from './home.js';
export { invalidRequest, isMessageId, type MessageId, messageProblem } from './jsonRpcMessage.js';
export { maskKnownSecrets, rememberSecret } from './knownSecrets.js';
export { FileLock, type HeldLock, LOCK_TIMEOUT_MS } from './lock.js';
export { fileLog, type Log, nullLog } from './log.js';
export { groupAlive, pidAlive } from './processAlive.js';
export { namingFailure, profileWriteError } from './profileWriteError.js';
export { randomHex } from './randomHex.js';
export { settleWithin, valueWithin } from './settleWithin.js';
export { shellAssignments, shellQuote } from './shellQuote.js';
export { errnoInText, errnoReason, writeError } from './writeError.js';
