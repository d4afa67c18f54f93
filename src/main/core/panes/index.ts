// The face of core/panes: what other folders may import from it (docs/architecture.md).
export { holdFrame, releaseFrame } from './framePool.js';
export { paneMethods } from './methods.js';
export { PaneBatch } from './paneBatch.js';
export { paneFrameOf, paneText } from './paneBytes.js';
export { reconnectDelayMs } from './paneReconnect.js';
export { Panes } from './panes.js';
