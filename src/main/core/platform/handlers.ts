// The shape every noun's slice of the Core API takes: one typed handler per method of src/shared/api.ts.
import type { CoreMethod, MethodInput, MethodOutput, ProgressNote, SubscribableEvent } from '../../../shared/api.js';
import type { ToolClient } from '../../../shared/tools.js';
import type { PersonWay } from '../../../shared/personWay.js';

/**
 * What a handler may know about the connection a call came in on. Transports implement it; calls made inside
 * the process (tests, the offline CLI) get `detachedConnection`, which receives nothing.
 */
export interface ConnectionScope {
  subscribe(events: readonly SubscribableEvent[]): void;
  unsubscribe(events: readonly SubscribableEvent[]): void;
  /**
   * Deliver this pane's output here; `closeOnLeave`: the pane is closed when the connection goes (it opened it);
   * `binary`: as binary frames where the carrier has them.
   */
  addPane(paneId: string, closeOnLeave: boolean, binary?: boolean): void;
  removePane(paneId: string): void;
}

export interface CallContext {
  /** Who is calling, as the transport knows it (never what the caller says of itself). */
  client: ToolClient;
  connection: ConnectionScope;
  /**
   * Why this caller is not a person (undefined: it is one). The transport answers from what an agent's process never
   * has: the window's own channel, the person link's secret, or a terminal of its own outside every agent sandbox.
   * Absent: the caller is an agent. `Core.invoke` asks it before every method that needs a person (shared/api.ts
   * methodCapability); no handler asks on its own.
   */
  personRefusal?: () => string | undefined;
  /**
   * How the person was known: the transport's word on its connection (the window's channel, a link's cookie, a
   * terminal), never the caller's. Core.invoke hands it on to a person's method only, once the check above passed; the
   * audit lines of a person's actions carry it.
   */
  person?: PersonWay;
  /** Aborts when the caller withdraws the call or its connection goes away (a held approval is withdrawn). */
  signal?: AbortSignal;
  /** Tells the caller how the call is getting on, where its transport carries it (a WebSocket's WireProgress). */
  progress?: (note: ProgressNote) => void;
}

export type Handler<M extends CoreMethod> = (input: MethodInput<M>, ctx: CallContext) => Promise<MethodOutput<M>>;
export type Handlers = { [M in CoreMethod]: Handler<M> };

/** What a caller inside the Core's own process that acts for the person passes (tests): known as the window is. */
export const asPerson = {
  person: 'window',
  personRefusal: (): string | undefined => undefined,
} as const satisfies Partial<CallContext>;

export const detachedConnection: ConnectionScope = {
  subscribe: () => undefined,
  unsubscribe: () => undefined,
  addPane: () => undefined,
  removePane: () => undefined,
};

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** The method names that appear in more than one table (never when the tables are disjoint). */
type Duplicates<T extends readonly object[], Seen = never> = T extends readonly [
  infer H,
  ...infer R extends readonly object[],
]
  ? (keyof H & Seen) | Duplicates<R, Seen | keyof H>
  : never;

/**
 * Merge the nouns' tables into one. A method served by two tables fails to compile (the argument must then carry
 * a `duplicated_method` property naming it); the caller's `satisfies Handlers` catches a missing one.
 */
export function composeHandlers<const T extends readonly object[]>(
  ...tables: T & ([Duplicates<T>] extends [never] ? unknown : { duplicated_method: Duplicates<T> })
): UnionToIntersection<T[number]> {
  return Object.assign({}, ...tables) as UnionToIntersection<T[number]>;
}
