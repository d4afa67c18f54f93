// The face of core/events: what other folders may import from it (docs/architecture.md).
export { EventBus, type EventListener } from './eventBus.js';
export { eventMethods } from './methods.js';
