// Random hex for per-call markers and tags, drawn from a pool refilled from the system's generator.
import { randomFillSync } from 'node:crypto';

/**
 * Every tool call takes a few random ids (its run marker, its shell's tags). A call to the generator costs more than
 * the rest of making them on a small machine, so bytes are taken from a pool filled 4 KB at a time; each byte is
 * used once, and the ids are as random as randomBytes' own.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

/** `bytes` random bytes as 2 × `bytes` hex digits. */
export function randomHex(bytes: number): string {
  if (bytes > pool.length) throw new RangeError(`randomHex: at most ${pool.length} bytes at a time`);
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}
