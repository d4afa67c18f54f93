import { describe, expect, it } from 'vitest';
import { randomHex } from './randomHex.js';

describe('randomHex', () => {
  it('gives hex of twice the bytes asked, never the same id twice, across many refills of its pool', () => {
    const seen = new Set<string>();
    // 6 and 8 bytes as the callers take them: 3,000 ids use the 4 KB pool up several times, ending mid-pool.
    for (let i = 0; i < 3000; i++) {
      const id = randomHex(i % 2 ? 6 : 8);
      expect(id).toMatch(i % 2 ? /^[0-9a-f]{12}$/ : /^[0-9a-f]{16}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(3000);
  });

  it('refuses more than its pool holds', () => {
    expect(() => randomHex(5000)).toThrow(RangeError);
  });
});
