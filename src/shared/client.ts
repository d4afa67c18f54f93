// The typed client over any link (WebSocket, Electron IPC): calls validated against the API table.
import { SwitchboardError, ErrorPayload } from './errors.js';
import { decodePaneFrame } from './paneFrame.js';
import {
  coreEvents,
  coreMethods,
  isCoreEvent,
  isPaneEvent,
  WireMessage,
  type CoreEvent,
  type CoreMethod,
  type EventPayload,
  type MethodInput,
  type MethodOutput,
  type ProgressNote,
  type WireRequest,
} from './api.js';

/** A bidirectional message pipe; the transport decides how bytes move. */
export interface Link {
  send(message: WireRequest): void;
  /** A parsed JSON message, or the bytes of a binary frame (pane output, shared/paneFrame.ts). */
  onMessage(handler: (message: unknown) => void): void;
  onClose(handler: (reason: string) => void): void;
  /** A link that dials again after a close calls this when it is open again (a browser page's socket). */
  onReopen?(handler: () => void): void;
}

type Listener<E extends CoreEvent> = (payload: EventPayload<E>) => void;

export class CoreClient {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    {
      resolve: (v: unknown) => void;
      reject: (e: Error) => void;
      method: CoreMethod;
      onProgress?: ((note: ProgressNote) => void) | undefined;
    }
  >();
  private readonly listeners = new Map<CoreEvent, Set<(payload: unknown) => void>>();
  private closedReason: string | undefined;
  private readonly reopened = new Set<() => void>();

  /**
   * `onBadFrame`: a binary frame that does not follow the layout (it is dropped); a warning on the console by default.
   */
  constructor(
    private readonly link: Link,
    private readonly onBadFrame: (err: SwitchboardError) => void = (err) => console.warn(err.message),
  ) {
    link.onMessage((raw) => this.receive(raw));
    link.onClose((reason) => {
      this.closedReason = reason;
      for (const p of this.pending.values())
        p.reject(new SwitchboardError('no_core', `connection to the Core closed: ${reason}`));
      this.pending.clear();
    });
    link.onReopen?.(() => {
      this.closedReason = undefined;
      // A new connection (perhaps to a new Core) knows none of this client's subscriptions: they are made again.
      const events = [...this.listeners].flatMap(([e, set]) => (set.size > 0 && !isPaneEvent(e) ? [e] : []));
      // A connection lost again reopens and subscribes again.
      if (events.length) void this.call('events.subscribe', { events }).catch(() => undefined);
      for (const h of this.reopened) h();
    });
  }

  /** Runs after the link is open again: what the client had loaded may be stale, and its panes gone with a Core. */
  onReopen(handler: () => void): () => void {
    this.reopened.add(handler);
    return () => this.reopened.delete(handler);
  }

  /**
   * Call a method. When `signal` aborts, the Core is asked to withdraw the call (it stops the work, e.g. kills the
   * command's process group) and the promise settles with the Core's answer, normally a `cancelled` error.
   * `onProgress` receives the progress messages of a call that asked for them (tool.call's `progress`).
   */
  call<M extends CoreMethod>(
    method: M,
    input: MethodInput<M>,
    opts: { signal?: AbortSignal; onProgress?: (note: ProgressNote) => void } = {},
  ): Promise<MethodOutput<M>> {
    if (this.closedReason !== undefined) {
      return Promise.reject(new SwitchboardError('no_core', `connection to the Core closed: ${this.closedReason}`));
    }
    const params = coreMethods[method].input.parse(input);
    const id = this.nextId++;
    const cancel = (): void => {
      if (this.pending.has(id) && this.closedReason === undefined) this.link.send({ type: 'cancel', id });
    };
    return new Promise<MethodOutput<M>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method, onProgress: opts.onProgress });
      this.link.send({ type: 'call', id, method, params });
      if (opts.signal?.aborted) cancel();
      else opts.signal?.addEventListener('abort', cancel, { once: true });
    }).finally(() => opts.signal?.removeEventListener('abort', cancel));
  }

  /** Tells the Core `chars` more of a pane's output were written (its flow control), with no reply to wait for. */
  ackPane(paneId: string, chars: number): void {
    if (this.closedReason === undefined) this.link.send({ type: 'ack', pane_id: paneId, chars });
  }

  /**
   * Listen to an event. The Core sends a connection only what it subscribed to, so the first listener of an event
   * subscribes and the last one to leave unsubscribes; pane events need no subscription (they follow pane.open/attach).
   */
  on<E extends CoreEvent>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const l = listener as (payload: unknown) => void;
    if (set.size === 0) this.setSubscribed(event, true);
    set.add(l);
    return () => {
      if (set.delete(l) && set.size === 0) this.setSubscribed(event, false);
    };
  }

  private setSubscribed(event: CoreEvent, on: boolean): void {
    if (isPaneEvent(event) || this.closedReason !== undefined) return;
    // Sent at once, so that a call made right after `on` is answered after the subscription took effect.
    void this.call(on ? 'events.subscribe' : 'events.unsubscribe', { events: [event] }).catch(() => undefined);
  }

  private receive(raw: unknown): void {
    if (raw instanceof Uint8Array) return this.receiveFrame(raw);
    const parsed = WireMessage.safeParse(raw);
    if (!parsed.success) return;
    const msg = parsed.data;
    if (msg.type === 'event') {
      if (!isCoreEvent(msg.event)) return;
      const set = this.listeners.get(msg.event);
      if (!set || set.size === 0) return;
      // pane.data is the hot path: its shape is checked cheaply instead of by zod.
      const payload = msg.event === 'pane.data' ? msg.payload : coreEvents[msg.event].safeParse(msg.payload).data;
      if (payload === undefined) return;
      for (const l of set) l(payload);
      return;
    }
    // Our own ids are whole numbers; anything else (a null for a request the Core could not read) is nobody's.
    if (typeof msg.id !== 'number') return;
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') return p.onProgress?.({ progress: msg.progress, message: msg.message });
    this.pending.delete(msg.id);
    if (msg.ok) {
      const out = coreMethods[p.method].output.safeParse(msg.result);
      if (out.success) p.resolve(out.data);
      else p.reject(new SwitchboardError('internal', `the Core sent a malformed ${p.method} result`));
    } else {
      p.reject(SwitchboardError.from(ErrorPayload.parse(msg.error)));
    }
  }

  private receiveFrame(bytes: Uint8Array): void {
    let frame: ReturnType<typeof decodePaneFrame>;
    try {
      frame = decodePaneFrame(bytes);
    } catch (err) {
      this.onBadFrame(
        err instanceof SwitchboardError ? err : new SwitchboardError('bad_request', 'malformed pane frame'),
      );
      return;
    }
    for (const l of this.listeners.get('pane.data') ?? []) l(frame);
  }
}
