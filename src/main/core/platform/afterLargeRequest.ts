// Gives a large request's memory back soon after it is answered, rather than whenever V8 next collects; and the
// young generation a burst of calls grew, once the process is idle again (afterWork).
//
// A request of some MB leaves its copies (the body, its text, the parsed arguments) in V8's large-object space and
// its buffers outside the heap. They are garbage once the call is answered, but only a full collection frees them,
// and an idle Core runs one late: the bench (bench/largeRequest.mjs) saw its RSS stay tens of MB up for a minute.
// So after the answer to a request over LARGE_REQUEST_BYTES the Core asks for one full collection. This is the one
// place it does: a collection of the Core's heap takes a few ms, it comes only after requests of a MB or more, and a
// burst of them shares one. `gc` is taken from a fresh context with --expose-gc set, as V8 offers it nowhere else;
// where that fails (another embedder's flags) nothing is done and V8 collects in its own time.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Requests at least this large (bytes on the wire) are followed by a collection. */
export const LARGE_REQUEST_BYTES = 256 * 1024;

/** After the last large answer: the answer's write has gone out and its call's references are dropped by then. */
const COLLECT_AFTER_MS = 250;

let collect: (() => void) | null | undefined;
let timer: NodeJS.Timeout | undefined;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    collect = typeof gc === 'function' ? () => void (gc as () => void)() : null;
  } catch {
    // Expected where V8's flags cannot be changed: the memory comes back at V8's next collection instead.
    collect = null;
  }
  return collect;
}

/** A request of `bytes` was answered (or refused): after a large one, collect once the burst it is part of is over. */
export function afterLargeRequest(bytes: number): void {
  if (bytes < LARGE_REQUEST_BYTES) return;
  if (timer) return void timer.refresh();
  timer = setTimeout(() => {
    timer = undefined;
    collector()?.();
  }, COLLECT_AFTER_MS);
  // Never what keeps a Core that is shutting down alive.
  timer.unref();
}

/** A burst of calls is over when none has ended for this long. */
export const IDLE_AFTER_WORK_MS = 2000;
/**
 * V8 grows its young generation under a burst of calls (up to 32 MB here) and keeps it: past this size, the idle
 * process gives it back. Below it, a collection would cost more than it returns.
 */
const GROWN_YOUNG_BYTES = 4 * 1024 * 1024;

let idleTimer: NodeJS.Timeout | undefined;

/**
 * A call ended: once the process has been idle for IDLE_AFTER_WORK_MS, and only if the young generation grew, one
 * collection that also shrinks it. `gc()` does not (it keeps the young generation's size); the collection the
 * inspector protocol asks for is V8's memory-reducing one, reached through an in-process session (no port is opened).
 */
export function afterWork(): void {
  if (idleTimer) return void idleTimer.refresh();
  idleTimer = setTimeout(() => {
    idleTimer = undefined;
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (young && young.space_size > GROWN_YOUNG_BYTES) reduceMemory();
  }, IDLE_AFTER_WORK_MS);
  idleTimer.unref();
}

let reducing = false;

function reduceMemory(): void {
  if (reducing) return;
  try {
    // Loaded here, not at start: the module costs a process a few MB and ms that `switchboard mcp` starts without.
    const session = new (process.getBuiltinModule('node:inspector').Session)();
    session.connect();
    // Disconnected on the next turn: a session disconnected inside its own callback hangs the event loop (Node 20).
    reducing = true;
    session.post('HeapProfiler.collectGarbage', () =>
      setImmediate(() => {
        session.disconnect();
        reducing = false;
      }),
    );
  } catch {
    // Expected only where the inspector is left out of Node's build: V8 keeps the memory until its own collections.
  }
}
