import { describe, expect, it } from 'vitest';
import { settleWithin, valueWithin } from './settleWithin.js';

const resolvesAfter = <T>(ms: number, value: T): Promise<T> =>
  new Promise((resolve) => setTimeout(() => resolve(value), ms));

describe('settleWithin', () => {
  it('says whether the promise settled in time', async () => {
    expect(await settleWithin(resolvesAfter(5, 'x'), 1000)).toBe(true);
    expect(await settleWithin(new Promise(() => undefined), 20)).toBe(false);
  });

  it('passes a rejection on', async () => {
    await expect(settleWithin(Promise.reject(new Error('boom')), 1000)).rejects.toThrow('boom');
  });
});

describe('valueWithin', () => {
  it("gives the promise's value in time, else the late value", async () => {
    expect(await valueWithin(resolvesAfter(5, 'early'), 1000, 'late')).toBe('early');
    expect(await valueWithin(resolvesAfter(1000, 'early'), 20, 'late')).toBe('late');
  });
});
