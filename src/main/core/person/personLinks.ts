// The secrets that make a browser page a person's: each one minted for a person (serve's terminal, `switchboard open`)
// and kept only in this process's memory and the link handed to them — never in core.json, a log or stdout.
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** How many links one Core keeps valid at once; the oldest is forgotten first (its page must be opened anew). */
const MAX_LINKS = 32;

export class PersonLinks {
  private readonly secrets: Buffer[] = [];

  /** A new secret for a link a person asked for. */
  mint(): string {
    const secret = randomBytes(24).toString('base64url');
    this.secrets.push(Buffer.from(secret));
    if (this.secrets.length > MAX_LINKS) this.secrets.shift();
    return secret;
  }

  /** Whether `given` is one of the secrets minted (compared in constant time). */
  matches(given: string | null | undefined): boolean {
    if (!given) return false;
    const g = Buffer.from(given);
    let found = false;
    for (const s of this.secrets) if (s.length === g.length && timingSafeEqual(s, g)) found = true;
    return found;
  }
}
