// Gives a large request's memory back soon after it is answered, rather than whenever V8 next collects.
//
// A request of some MB leaves its copies (the body, its text, the parsed arguments) in V8's large-object space and
// its buffers outside the heap. They are garbage once the call is answered, but only a full collection frees them,
// and an idle Core runs one late: the bench (bench/largeRequest.mjs) saw its RSS stay tens of MB up for a minute.
// So after the answer to a request over LARGE_REQUEST_BYTES the Core asks for one full collection. This is the one
// place it does: a collection of the Core's heap takes a few ms, it comes only after requests of a MB or more, and a
// burst of them shares one. `gc` is taken from a fresh context with --expose-gc set, as V8 offers it nowhere else;
// where that fails (another embedder's flags) nothing is done and V8 collects in its own time.
import { setFlagsFromString } from 'node:v8';
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
