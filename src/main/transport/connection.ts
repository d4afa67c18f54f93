// One client's connection to the Core, whatever carries it (Electron IPC or a WebSocket): requests in; replies, the
// events it subscribed to and the output of its own panes out, with a bound on what may queue for a client that stops
// reading.
import { randomUUID } from 'node:crypto';
import { MAX_JSON_DEPTH, formatZodError, nestedDeeperThan, toErrorPayload } from '../../shared/errors.js';
import { MAX_FILE_CONTENT_CHARS, MAX_REQUEST_BYTES, mib } from '../../shared/limits.js';
import {
  isPaneEvent,
  WireAck,
  WireCall,
  WireCancel,
  WireId,
  type CoreEvent,
  type SubscribableEvent,
  type WireEvent,
  type WireProgress,
  type WireResponse,
} from '../../shared/api.js';
import { type CallContext, type ConnectionScope, afterLargeRequest } from '../core/platform/index.js';
import type { ToolClient } from '../../shared/tools.js';
import { personWays, type PersonWay } from '../../shared/personWay.js';
import type { EventListener } from '../core/events/index.js';
import { encodePaneData } from '../../shared/paneFrame.js';
import { paneFrameOf, paneText, holdFrame, releaseFrame } from '../core/panes/index.js';

/** What carries the messages. */
export interface Peer {
  send(message: WireResponse | WireEvent | WireProgress): void;
  /**
   * A binary frame (shared/paneFrame.ts); absent when the carrier has none (Electron IPC: panes get JSON events).
   * `sent` runs once the carrier no longer reads the frame's bytes (written, or dropped with the connection): the
   * Core uses the frame's memory again after that (core/panes/framePool.ts).
   */
  sendBinary?(frame: Uint8Array, sent: () => void): void;
  /** Bytes queued toward the client and not yet written; 0 when the carrier cannot tell (Electron IPC). */
  buffered(): number;
  isOpen(): boolean;
  /** End the connection; `reason` is shown to the client where the carrier can say it. */
  close(reason: string): void;
}

/** The part of the Core a connection talks to. */
export interface ConnectionCore {
  invoke(method: string, params: unknown, ctx: Partial<CallContext>): Promise<unknown>;
  onEvent(listener: EventListener): () => void;
  /** `leave`: a connection that held the pane as its own went (the pane closes, or is kept a while for a reload). */
  panes: {
    throttle(paneId: string, holder: string): () => void;
    leave(paneId: string): void;
    has(paneId: string): boolean;
    ack(paneId: string, chars: number): void;
  };
}

export interface ConnectionLimits {
  /**
   * Above this many queued bytes the pty of a pane whose output is queued stops being read, and process.output is
   * dropped.
   */
  highBytes: number;
  /** Below this, throttled panes are read again. */
  lowBytes: number;
  /** Above this, the connection is closed: it has stopped reading and would otherwise grow the Core without bound. */
  hardCapBytes: number;
  /** How often a throttled connection's queue is looked at. */
  pollMs: number;
}

export const DEFAULT_LIMITS: ConnectionLimits = {
  highBytes: 1 << 20,
  lowBytes: 256 << 10,
  hardCapBytes: 64 << 20,
  pollMs: 20,
};

/**
 * The id of a request too large to parse, read from its first bytes: the outer object's `"id":` member, when it comes
 * before any nested object or array (our clients send `type` and `id` first). null when it is not found there.
 */
export function leadingId(head: string): WireResponse['id'] {
  const open = head.indexOf('{');
  if (open < 0) return null;
  const rest = head.slice(open + 1);
  const nested = rest.search(/[{[]/);
  // A `"` inside a string is escaped, so `,"id":` or `{"id":` with a bare quote is a member of the outer object.
  const m = /(?:^|,)\s*"id"\s*:\s*(-?\d+|"[^"\\]{0,128}")\s*(?:,|}|$)/.exec(nested < 0 ? rest : rest.slice(0, nested));
  if (!m) return null;
  const id = WireId.safeParse(JSON.parse(m[1]!));
  return id.success ? id.data : null;
}

/** The refusal of a request over MAX_REQUEST_BYTES. */
function tooLargeReply(id: WireResponse['id'], size: number): WireResponse {
  return {
    type: 'result',
    id,
    ok: false,
    error: {
      code: 'too_large',
      message: `the request is ${mib(size)}; the limit is ${mib(MAX_REQUEST_BYTES)}`,
      hint:
        `write a large file in parts of at most ${mib(MAX_FILE_CONTENT_CHARS)} and join them with a command; ` +
        `a long command goes in a file a short one runs`,
    },
  };
}

/** Who is at the other end, as the carrier can tell without asking the client. */
export interface ConnectionIdentity {
  client: ToolClient;
  /** How a person is known on this connection (its carrier), whenever personRefusal says one is there. */
  person: PersonWay;
  /** Why this connection is not a person's (undefined: it is); asked before every method that needs a person. */
  personRefusal: () => string | undefined;
}

/** A connection nothing is known about: recorded as the CLI, and an agent (it is not a person). */
export const unknownCaller: ConnectionIdentity = {
  client: 'cli',
  person: personWays.terminal,
  personRefusal: () => 'the connection did not show who it is',
};

/**
 * A batch of a pane's output as the Core emits it: the pty's bytes (or text, from a test or a plugin) and its chars.
 */
type PaneData = { pane_id: string; data: string | Uint8Array; chars?: number };

/** One batch goes to every window of a pane: it is framed once, for the first of them. */
const framed = new WeakMap<object, Uint8Array>();
function paneDataFrame(payload: PaneData): Uint8Array {
  let frame = framed.get(payload);
  if (!frame) {
    const { pane_id, data } = payload;
    // A batch the Core read into its frame is sent as it is; other output (text, bytes from elsewhere) is copied into
    // one.
    frame =
      typeof data === 'string'
        ? encodePaneData(pane_id, data)
        : (paneFrameOf(data) ?? encodePaneData(pane_id, data, payload.chars ?? paneText(data).length));
    framed.set(payload, frame);
  }
  return frame;
}

/** The JSON event of a batch: its text (decoded once however many clients read it) and the chars to acknowledge. */
function paneDataEvent(payload: PaneData): { pane_id: string; data: string; chars: number } {
  const data = typeof payload.data === 'string' ? payload.data : paneText(payload.data);
  return { pane_id: payload.pane_id, data, chars: payload.chars ?? data.length };
}

export const SLOW_CLIENT_REASON = 'the client stopped reading; closed to protect the Core';

export class Connection implements ConnectionScope {
  /** Names this connection's throttles on the panes it reads. */
  private readonly key = `connection:${randomUUID()}`;
  private readonly subscribed = new Set<SubscribableEvent>();
  /** Pane id → close it when this connection goes (it opened the pane) or not (it attached), and how output is sent. */
  private readonly panes = new Map<string, { closeOnLeave: boolean; binary: boolean }>();
  private readonly throttles = new Map<string, () => void>();
  private drainTimer: NodeJS.Timeout | undefined;
  private readonly offEvents: () => void;
  private ended = false;
  /** Calls of this connection still running, by wire id, so a cancel (or the connection's end) can stop them. */
  private readonly inflight = new Map<string | number, AbortController>();

  constructor(
    private readonly core: ConnectionCore,
    private readonly peer: Peer,
    private readonly limits: ConnectionLimits = DEFAULT_LIMITS,
    private readonly identity: ConnectionIdentity = unknownCaller,
  ) {
    this.offEvents = core.onEvent((event, payload) => this.onEvent(event, payload));
  }

  /** One wire message from the client (already JSON-parsed); `size` is its length on the wire, when known. */
  async receive(raw: unknown, size = 0): Promise<void> {
    if ((raw as { type?: unknown } | null)?.type === 'cancel') {
      // No reply of its own: the call it names is answered (cancelled), and an id that is not in flight is a no-op.
      const cancel = WireCancel.safeParse(raw);
      if (cancel.success) this.inflight.get(cancel.data.id)?.abort();
      return;
    }
    if ((raw as { type?: unknown } | null)?.type === 'ack') {
      // No reply either (that is its point): a malformed one, or one for a pane that has closed since, is dropped.
      const ack = WireAck.safeParse(raw);
      // Only for a pane this connection reads: another's flow control is not its to move.
      if (ack.success && this.panes.has(ack.data.pane_id) && this.core.panes.has(ack.data.pane_id))
        this.core.panes.ack(ack.data.pane_id, ack.data.chars);
      return;
    }
    const parsed = WireCall.safeParse(raw);
    if (!parsed.success) {
      // Every request is answered, or its caller waits forever: a malformed one with what is wrong.
      const id = WireId.safeParse((raw as { id?: unknown } | null)?.id);
      this.send({
        type: 'result',
        id: id.success ? id.data : null,
        ok: false,
        error: {
          code: 'bad_request',
          message: `malformed request: ${formatZodError(parsed.error)}`,
          hint: 'send {"type":"call","id":N,"method":"…","params":{…}}',
        },
      });
      return;
    }
    const msg = parsed.data;
    let reply: WireResponse;
    if (nestedDeeperThan(msg.params)) {
      reply = {
        type: 'result',
        id: msg.id,
        ok: false,
        error: { code: 'bad_request', message: `the request nests more than ${MAX_JSON_DEPTH} levels deep` },
      };
    } else if (size > MAX_REQUEST_BYTES) {
      reply = tooLargeReply(msg.id, size);
    } else {
      const abort = new AbortController();
      // A reused id (a client's mistake) leaves the earlier call uncancellable by id, never cancels the wrong one.
      if (!this.inflight.has(msg.id)) this.inflight.set(msg.id, abort);
      try {
        reply = {
          type: 'result',
          id: msg.id,
          ok: true,
          result: await this.core.invoke(msg.method, msg.params, this.callContext(abort.signal, msg.id)),
        };
      } catch (err) {
        reply = { type: 'result', id: msg.id, ok: false, error: toErrorPayload(err) };
      } finally {
        if (this.inflight.get(msg.id) === abort) this.inflight.delete(msg.id);
      }
    }
    this.send(reply);
    afterLargeRequest(size);
  }

  /** A request over MAX_REQUEST_BYTES, refused unparsed (its carrier read its id from its start: leadingId). */
  refuseTooLarge(id: WireResponse['id'], size: number): void {
    this.send(tooLargeReply(id, size));
    afterLargeRequest(size);
  }

  private callContext(signal: AbortSignal, id: WireCall['id']): Partial<CallContext> {
    return {
      connection: this,
      client: this.identity.client,
      person: this.identity.person,
      personRefusal: this.identity.personRefusal,
      signal,
      // Only until the call is answered: a note that comes late would follow its result.
      progress: (note) => {
        if (!signal.aborted && this.inflight.has(id)) this.send({ type: 'progress', id, ...note });
      },
    };
  }

  // ---- ConnectionScope: what handlers may change about this connection ----

  subscribe(events: readonly SubscribableEvent[]): void {
    for (const e of events) this.subscribed.add(e);
  }

  unsubscribe(events: readonly SubscribableEvent[]): void {
    for (const e of events) this.subscribed.delete(e);
  }

  addPane(paneId: string, closeOnLeave: boolean, binary = false): void {
    const had = this.panes.get(paneId);
    this.panes.set(paneId, {
      closeOnLeave: closeOnLeave || (had?.closeOnLeave ?? false),
      binary: binary && this.peer.sendBinary !== undefined,
    });
  }

  removePane(paneId: string): void {
    this.panes.delete(paneId);
    this.throttles.get(paneId)?.();
    this.throttles.delete(paneId);
  }

  // ---- out -----------------------------------------------------------------

  private onEvent(event: CoreEvent, payload: unknown): void {
    if (isPaneEvent(event)) {
      const paneId = (payload as { pane_id: string }).pane_id;
      const route = this.panes.get(paneId);
      if (!route) return;
      if (event === 'pane.data' && route.binary) this.sendFrame(paneDataFrame(payload as PaneData));
      else if (event === 'pane.data') this.send({ type: 'event', event, payload: paneDataEvent(payload as PaneData) });
      else this.send({ type: 'event', event, payload });
      if (event === 'pane.data') this.throttleIfBehind(paneId);
      return;
    }
    if (!this.subscribed.has(event)) return;
    // A live tail the client can re-read with processes.log; dropping it beats queueing a flood for a slow reader.
    if (event === 'process.output' && this.peer.buffered() > this.limits.highBytes) return;
    this.send({ type: 'event', event, payload });
  }

  private send(message: WireResponse | WireEvent | WireProgress): void {
    if (this.mayQueue()) this.peer.send(message);
  }

  private sendFrame(frame: Uint8Array): void {
    if (!this.peer.sendBinary || !this.mayQueue()) return;
    // Held until the socket has written it: a pane's frames are used again for its later output (framePool.ts).
    holdFrame(frame);
    this.peer.sendBinary(frame, () => releaseFrame(frame));
  }

  /** False when nothing more may be sent: the connection ended, or its client stopped reading (it is closed now). */
  private mayQueue(): boolean {
    if (this.ended || !this.peer.isOpen()) return false;
    if (this.peer.buffered() <= this.limits.hardCapBytes) return true;
    this.close(SLOW_CLIENT_REASON);
    return false;
  }

  /** The pane's pty is read no faster than this client takes its output (as flow control does for the renderer). */
  private throttleIfBehind(paneId: string): void {
    if (this.throttles.has(paneId) || this.peer.buffered() <= this.limits.highBytes) return;
    this.throttles.set(paneId, this.core.panes.throttle(paneId, this.key));
    this.drainTimer ??= setInterval(() => {
      if (this.peer.buffered() > this.limits.lowBytes && this.peer.isOpen()) return;
      this.releaseThrottles();
    }, this.limits.pollMs);
    this.drainTimer.unref();
  }

  private releaseThrottles(): void {
    for (const release of this.throttles.values()) release();
    this.throttles.clear();
    if (this.drainTimer) clearInterval(this.drainTimer);
    this.drainTimer = undefined;
  }

  /** What this connection is sent and holds right now (diagnostics and tests). */
  stats(): { buffered: number; subscribed: SubscribableEvent[]; panes: string[]; throttled: string[] } {
    return {
      buffered: this.peer.buffered(),
      subscribed: [...this.subscribed],
      panes: [...this.panes.keys()],
      throttled: [...this.throttles.keys()],
    };
  }

  /** Close from the Core's side (a client that stopped reading). */
  close(reason: string): void {
    this.peer.close(reason);
    this.dispose();
  }

  /** The carrier is gone: stop sending, let go of the panes, and leave the ones this connection opened or resumed. */
  dispose(): void {
    if (this.ended) return;
    this.ended = true;
    this.offEvents();
    // A caller that went away cancelled what it was waiting for (a dropped `switchboard call`, a closed page).
    for (const abort of this.inflight.values()) abort.abort();
    this.inflight.clear();
    this.releaseThrottles();
    for (const [paneId, { closeOnLeave }] of this.panes) {
      if (!closeOnLeave) continue;
      this.core.panes.leave(paneId);
    }
    this.panes.clear();
  }
}
