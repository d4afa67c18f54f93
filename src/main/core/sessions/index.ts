// The face of core/sessions: what other folders may import from it (docs/architecture.md).
export { IdentityHolds } from './identityHolds.js';
export { Sessions, startCwd } from './sessions.js';
