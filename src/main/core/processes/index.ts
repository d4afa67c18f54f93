// The face of core/processes: what other folders may import from it (docs/architecture.md).
export { AGENT_VARIABLE, CoreRuns, sweepLocal } from './coreRuns.js';
export { markedProvider, type SweepReport } from './markedEnvironment.js';
export { processMethods } from './methods.js';
export { DEFAULT_LOG_LINES, ProcessManager, type ProcessScope } from './processManager.js';
export { sweepAuditRecord } from './sweepAudit.js';
