// Pane frames used again once nothing holds them: a flood fills one frame per batch, and fresh ones cost the Core.
//
// Measured with perf during 20 MB floods (bench/run.mjs P1): frames allocated fresh for every batch cost page faults on
// new memory, and their external memory set off old-space collections (1–3 per flood), whose concurrent marking and
// sweeping took about as much CPU as the Core's JS. A frame is used again only when every holder let it go: the batch
// filling it, the flush sending it, the replay buffer, and each socket until its write completes. A holder that never
// lets go (a closed pane, a write that threw) only keeps its frame from the pool; it is collected like any buffer.
// Whoever keeps a batch's bytes past the call that handed them out must hold the frame, or copy the bytes.

/** One frame's memory: the largest batch (BATCH_MAX_BYTES) and its header fit. */
export const FRAME_BYTES = 256 * 1024;
/** Free frames kept (2 MiB); more than a flood has in flight at once. */
const POOL_MAX = 8;

/** Holders of each pooled frame, by its memory (a batch, its frame and their views share it). */
const holders = new WeakMap<ArrayBufferLike, number>();
const free: Buffer<ArrayBuffer>[] = [];
let reused = 0;

/** A frame held once, by the caller: from the pool, or new. Unzeroed: the caller writes before anything reads it. */
export function takeFrame(): Buffer<ArrayBuffer> {
  const pooled = free.pop();
  if (pooled) reused++;
  const frame = pooled ?? Buffer.allocUnsafeSlow(FRAME_BYTES);
  holders.set(frame.buffer, 1);
  return frame;
}

/** One more holder of the frame `bytes` lie in; nothing for bytes that are not in a pooled frame. */
export function holdFrame(bytes: Uint8Array): void {
  const n = holders.get(bytes.buffer);
  if (n !== undefined) holders.set(bytes.buffer, n + 1);
}

/** A holder lets the frame `bytes` lie in go; the last one gives it back to the pool. */
export function releaseFrame(bytes: Uint8Array): void {
  const memory = bytes.buffer;
  const n = holders.get(memory);
  if (n === undefined) return;
  if (n > 1) return void holders.set(memory, n - 1);
  holders.delete(memory);
  if (free.length < POOL_MAX) free.push(Buffer.from(memory as ArrayBuffer, 0, FRAME_BYTES));
}

/** How many frames wait in the pool, and how many were taken from it so far (for tests). */
export function poolStats(): { pooled: number; reused: number } {
  return { pooled: free.length, reused };
}
