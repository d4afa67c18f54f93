// events.subscribe / events.unsubscribe: what the calling connection wants pushed to it.
import type { Handlers } from '../platform/index.js';

export function eventMethods() {
  return {
    'events.subscribe': async ({ events }, ctx) => (ctx.connection.subscribe(events), {}),
    'events.unsubscribe': async ({ events }, ctx) => (ctx.connection.unsubscribe(events), {}),
  } satisfies Partial<Handlers>;
}
