// The one-time codes person links carry: short-lived, used once, kept as digests in this process's memory only, so a
// copy of a link found later (a browser's History keeps every address opened) is worth nothing.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a code stays good: time to open a link just shown, short enough that a copy found later is dead. */
export const CODE_TTL_MS = 2 * 60_000;

/** How many codes may wait at once; minting one more forgets the oldest. */
const MAX_CODES = 32;

const digestOf = (code: string): Buffer => createHash('sha256').update(code).digest();

export class OneTimeCodes {
  private codes: Array<{ digest: Buffer; expires: number }> = [];
  private readonly ttlMs: number;
  private readonly now: () => number;

  /** `now`: the clock (tests move it). */
  constructor(opts: { ttlMs?: number; now?: () => number } = {}) {
    this.ttlMs = opts.ttlMs ?? CODE_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** A new code, good once within the TTL. */
  mint(): string {
    const code = randomBytes(16).toString('base64url');
    this.forgetExpired();
    this.codes.push({ digest: digestOf(code), expires: this.now() + this.ttlMs });
    if (this.codes.length > MAX_CODES) this.codes.shift();
    return code;
  }

  /**
   * Whether `given` is a code minted here, unused and not expired; a code that matches is used up. Every waiting code
   * is compared (digests, in constant time), so how long this takes says nothing of which one came close.
   */
  take(given: string | null | undefined): boolean {
    this.forgetExpired();
    if (!given) return false;
    const g = digestOf(given);
    let at = -1;
    for (const [i, c] of this.codes.entries()) if (timingSafeEqual(c.digest, g)) at = i;
    if (at < 0) return false;
    this.codes.splice(at, 1);
    return true;
  }

  /** How many codes wait (tests). */
  get size(): number {
    this.forgetExpired();
    return this.codes.length;
  }

  private forgetExpired(): void {
    const now = this.now();
    this.codes = this.codes.filter((c) => c.expires > now);
  }
}
