// The face of core/approvals: what other folders may import from it (docs/architecture.md).
export { approvalAuditRecord } from './approvalAudit.js';
export { ApprovalRefused, type Authorization } from './approvalBinding.js';
export { ApprovalBroker, type Decided, decidedBy } from './approvalBroker.js';
export { ApprovalRules } from './approvalRules.js';
export { type ApprovalCall, CommandApprovals } from './commandApprovals.js';
export { approvalMethods } from './methods.js';
export type { PolicyCall, PolicyContext } from './policy/commandPolicy.js';
export { execProbe, hostPathsProbe } from './targetProbe.js';
