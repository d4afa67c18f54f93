// The Core's events, typed by src/shared/api.ts; connections filter them by what each subscribed to.
import type { CoreEvent, EventPayload } from '../../../shared/api.js';

export type EventListener = (event: CoreEvent, payload: unknown) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends CoreEvent>(event: E, payload: EventPayload<E>): void {
    for (const l of this.listeners) l(event, payload);
  }
}
