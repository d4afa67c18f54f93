// The face of core/doctor: what other folders may import from it (docs/architecture.md).
export { doctorMethods } from './methods.js';
