// What makes a browser page a person's. A link handed to a person (serve's terminal, `switchboard open`) carries a
// one-time code (oneTimeCodes.ts); the page trades it once for a lasting secret, which it keeps only as an HttpOnly
// cookie. The profile keeps the secrets' SHA-256 digests (never the secrets) in state/person-links.json, so a page is
// still the person's when it reconnects to the next Core on the same profile. Neither a code nor a secret is ever in
// core.json, a log or stdout. The cookie is scoped to the profile's own page path (`home`), which only a person's
// page learns: a browser sends a host's cookies to every port of it, and this keeps them from a server an agent
// runs on the same host (its dev server, opened by the person) and from that server's pages.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { atomicWriteSync } from '../platform/index.js';
import { OneTimeCodes } from './oneTimeCodes.js';

/** How many pages' secrets a profile keeps valid at once; the oldest is forgotten first (its page needs a new link). */
const MAX_LINKS = 32;

const PATH_ID = /^[\w-]{22}$/;
const Stored = z.object({
  digests: z.array(z.string().regex(/^[0-9a-f]{64}$/)).max(MAX_LINKS),
  path: z.string().regex(PATH_ID).optional(),
});

const digestOf = (secret: string): Buffer => createHash('sha256').update(secret).digest();

export class PersonLinks {
  private readonly digests: Buffer[] = [];
  /** The random part of the page path; the same for every Core on the profile, so a page's cookie keeps working. */
  private pathId = randomBytes(16).toString('base64url');

  /**
   * `file`: where the digests are kept between runs (none: this process's memory only); `codes`: where the links'
   * one-time codes wait (tests pass one with a clock of their own).
   */
  constructor(
    private readonly file?: string,
    private readonly codes = new OneTimeCodes(),
  ) {
    if (!file) return;
    try {
      const stored = Stored.parse(JSON.parse(readFileSync(file, 'utf8')));
      for (const d of stored.digests) this.digests.push(Buffer.from(d, 'hex'));
      if (stored.path) this.pathId = stored.path;
    } catch {
      // None yet, or unreadable: links minted from now on count; older pages are opened anew.
    }
  }

  /**
   * The path a person's page lives under (`/p/<random>`, no trailing slash): its cookie's Path, so a browser sends the
   * cookie to nothing else on the host. Not a secret by itself (it opens nothing without the cookie), but handed only
   * to a page that traded a code; an agent that knew it could make a page of its own, opened by the person, ask for it.
   */
  get home(): string {
    return `/p/${this.pathId}`;
  }

  /** A new link's one-time code, for a person who asked for one (the page trades it with `exchange`). */
  code(): string {
    return this.codes.mint();
  }

  /**
   * A new lasting secret for a page that shows a link's code, or undefined when the code is not one minted here, was
   * used already or has expired. A code that matches is used up.
   */
  exchange(code: string | null | undefined): string | undefined {
    return this.codes.take(code) ? this.mint() : undefined;
  }

  /** A new lasting secret, its digest kept (a page that traded a code; tests acting as such a page). */
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
      const stored = { digests: this.digests.map((d) => d.toString('hex')), path: this.pathId };
      atomicWriteSync(this.file, JSON.stringify(stored) + '\n');
    } catch {
      // A full or read-only profile: the link still works for this run (kept in memory); no temp file stays.
    }
  }
}
