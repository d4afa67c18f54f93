// A person link's code: good once, for CODE_TTL_MS, compared in constant time against every code that waits.
import * as crypto from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CODE_TTL_MS, OneTimeCodes } from './oneTimeCodes.js';
import { PersonLinks } from './personLinks.js';

// The real timingSafeEqual, counted: the store must compare through it, against every code that waits.
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof import('node:crypto')>();
  return { ...real, timingSafeEqual: vi.fn(real.timingSafeEqual) };
});
const compared = vi.mocked(crypto.timingSafeEqual);
afterEach(() => compared.mockClear());

/** A store on a clock the test moves. */
function store(): { codes: OneTimeCodes; later: (ms: number) => void } {
  let now = 1_000_000;
  return { codes: new OneTimeCodes({ now: () => now }), later: (ms) => void (now += ms) };
}

describe('OneTimeCodes', () => {
  const table: Array<[what: string, steps: (s: ReturnType<typeof store>, code: string) => boolean, taken: boolean]> = [
    ['the code, at once', (s, c) => s.codes.take(c), true],
    ['the code, just before it expires', (s, c) => (s.later(CODE_TTL_MS - 1), s.codes.take(c)), true],
    ['the code, once it has expired', (s, c) => (s.later(CODE_TTL_MS), s.codes.take(c)), false],
    ['the code, a second time', (s, c) => (s.codes.take(c), s.codes.take(c)), false],
    ['a wrong code', (s) => s.codes.take('x'.repeat(22)), false],
    [
      'the code with one character changed',
      (s, c) => s.codes.take(c.slice(0, -1) + (c.endsWith('A') ? 'B' : 'A')),
      false,
    ],
    ['a prefix of the code', (s, c) => s.codes.take(c.slice(0, 10)), false],
    ['nothing', (s) => s.codes.take(''), false],
    ['null', (s) => s.codes.take(null), false],
  ];
  for (const [what, steps, taken] of table) {
    it(`${what}: ${taken ? 'taken' : 'refused'}`, () => {
      const s = store();
      expect(steps(s, s.codes.mint())).toBe(taken);
    });
  }

  it('each code is its own: taking one leaves the others good', () => {
    const s = store();
    const [a, b, c] = [s.codes.mint(), s.codes.mint(), s.codes.mint()];
    expect(new Set([a, b, c]).size).toBe(3);
    expect(s.codes.take(b)).toBe(true);
    expect(s.codes.take(b)).toBe(false);
    expect([s.codes.take(a), s.codes.take(c)]).toEqual([true, true]);
    expect(s.codes.size).toBe(0);
  });

  it('an expired code is forgotten; one minted later is still good', () => {
    const s = store();
    const old = s.codes.mint();
    s.later(CODE_TTL_MS / 2);
    const fresh = s.codes.mint();
    s.later(CODE_TTL_MS / 2);
    expect(s.codes.size).toBe(1);
    expect(s.codes.take(old)).toBe(false);
    expect(s.codes.take(fresh)).toBe(true);
  });

  it('at most 32 wait: the oldest goes first', () => {
    const s = store();
    const first = s.codes.mint();
    for (let i = 0; i < 32; i++) s.codes.mint();
    expect(s.codes.size).toBe(32);
    expect(s.codes.take(first)).toBe(false);
  });

  it('compares digests in constant time, against every code that waits, whether or not one matches', () => {
    const s = store();
    const codes = [s.codes.mint(), s.codes.mint(), s.codes.mint()];
    compared.mockClear();
    expect(s.codes.take('a wrong code')).toBe(false);
    expect(compared).toHaveBeenCalledTimes(3);
    // Digests of one length, whatever the length of what was given.
    for (const [a, b] of compared.mock.calls) expect([a.byteLength, b.byteLength]).toEqual([32, 32]);
    compared.mockClear();
    // The first one matches, and the other two are compared all the same.
    expect(s.codes.take(codes[0])).toBe(true);
    expect(compared).toHaveBeenCalledTimes(3);
  });
});

describe('PersonLinks.exchange', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-person-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('trades a code once for a lasting secret; the profile keeps its digest, never the code or the secret', () => {
    const file = join(dir, 'state', 'person-links.json');
    const links = new PersonLinks(file);
    const code = links.code();
    const secret = links.exchange(code);
    expect(secret).toMatch(/^[\w-]{32}$/);
    expect(links.matches(secret)).toBe(true);
    expect(links.exchange(code)).toBeUndefined();
    expect(links.matches(code)).toBe(false);
    const kept = readFileSync(file, 'utf8');
    expect(kept).not.toContain(secret!);
    expect(kept).not.toContain(code);
    // The next Core on the profile knows the page, at the same home; it never knew the code.
    const next = new PersonLinks(file);
    expect(next.matches(secret)).toBe(true);
    expect(next.home).toBe(links.home);
    expect(links.home).toMatch(/^\/p\/[\w-]{22}$/);
    // Another profile's pages live elsewhere.
    expect(new PersonLinks().home).not.toBe(links.home);
    expect(next.exchange(links.code())).toBeUndefined();
  });

  it('an expired code buys nothing, and keeps nothing', () => {
    let now = 0;
    const links = new PersonLinks(undefined, new OneTimeCodes({ now: () => now }));
    const code = links.code();
    now += CODE_TTL_MS;
    expect(links.exchange(code)).toBeUndefined();
  });
});
