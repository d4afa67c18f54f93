// How long to wait before the next try of something that keeps failing: doubling from a first wait up to a ceiling,
// the one formula of the Core's retries (target health looks, plugin host restarts, pane reconnects, the registry
// lock).

/** The wait before retry `n` (0 for the first retry): `firstMs` doubled `n` times, at most `maxMs`. */
export function backoffMs(n: number, firstMs: number, maxMs: number): number {
  // The exponent's bound keeps 2 ** n finite; the ceiling is reached long before it.
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(0, n), 52));
}

/** `ms` spread to between once and twice itself, so that waiters started together do not wake together. */
export function jittered(ms: number, random: () => number = Math.random): number {
  return ms + random() * ms;
}
