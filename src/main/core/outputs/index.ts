// The face of core/outputs: what other folders may import from it (docs/architecture.md).
export { OutputSpool, OutputStore } from './outputStore.js';
