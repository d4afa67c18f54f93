// The face of core/activity: what other folders may import from it (docs/architecture.md).
export { ACTIVITY_KEPT, ActivityLog } from './activityLog.js';
export { AuditLog, type AuditRecord } from './audit.js';
export { type ChainReport, headPath, parseHead, verifyChain } from './auditChain.js';
export { auditLine, recentActivity } from './auditLine.js';
export { activityMethods } from './methods.js';
export { actionRecorder, type RecordAction, whoActs } from './windowActions.js';
