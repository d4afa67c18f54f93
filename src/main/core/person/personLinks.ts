// The secrets that make a browser page a person's: each one minted for a person (serve's terminal, `switchboard open`)
// and handed only to them — never in core.json, a log or stdout. The profile keeps their SHA-256 digests (never the
// secrets) in state/person-links.json, so a page opened from a link is still the person's when it reconnects to the
// next Core on the same profile.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { atomicWrite } from '../registry/atomicWrite.js';

/** How many links a profile keeps valid at once; the oldest is forgotten first (its page must be opened anew). */
const MAX_LINKS = 32;

const Stored = z.object({ digests: z.array(z.string().regex(/^[0-9a-f]{64}$/)).max(MAX_LINKS) });

const digestOf = (secret: string): Buffer => createHash('sha256').update(secret).digest();

export class PersonLinks {
  private readonly digests: Buffer[] = [];

  /** `file`: where the digests are kept between runs (none: this process's memory only). */
  constructor(private readonly file?: string) {
    if (!file) return;
    try {
      const stored = Stored.parse(JSON.parse(readFileSync(file, 'utf8')));
      for (const d of stored.digests) this.digests.push(Buffer.from(d, 'hex'));
    } catch {
      // None yet, or unreadable: links minted from now on count; older pages are opened anew.
    }
  }

  /** A new secret for a link a person asked for. */
  mint(): string {
    const secret = randomBytes(24).toString('base64url');
    this.digests.push(digestOf(secret));
    if (this.digests.length > MAX_LINKS) this.digests.shift();
    this.save();
    return secret;
  }

  /** Whether `given` is one of the secrets minted (its digest compared in constant time). */
  matches(given: string | null | undefined): boolean {
    if (!given) return false;
    const g = digestOf(given);
    let found = false;
    for (const d of this.digests) if (timingSafeEqual(d, g)) found = true;
    return found;
  }

  private save(): void {
    if (!this.file) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      atomicWrite(this.file, JSON.stringify({ digests: this.digests.map((d) => d.toString('hex')) }) + '\n');
    } catch {
      // A full or read-only profile: the link still works for this run (kept in memory); no temp file stays.
    }
  }
}
