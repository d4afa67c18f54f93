// The face of core/person: what other folders may import from it (docs/architecture.md).
export { personMethods } from './methods.js';
export { CODE_TTL_MS } from './oneTimeCodes.js';
export { PersonLinks } from './personLinks.js';
