// The face of core/dispatch: what other folders may import from it (docs/architecture.md).
export { Dispatcher } from './dispatcher.js';
export { summarizeArgs } from './summarize.js';
