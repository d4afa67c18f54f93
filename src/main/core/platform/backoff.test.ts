// The one backoff formula, with each caller's parameters: the waits are the ones each had before it was shared.
import { describe, expect, it } from 'vitest';
import { defaultHealthTiming } from '../targets/index.js';
import { reconnectDelayMs } from '../panes/index.js';
import { restartBackoff } from '../plugins/index.js';
import { lockBackoff } from './lock.js';
import { backoffMs, jittered } from './backoff.js';

describe('backoffMs', () => {
  const waits = (firstMs: number, maxMs: number, n: number): number[] =>
    Array.from({ length: n }, (_, i) => backoffMs(i, firstMs, maxMs));

  it.each<[string, number[], number[]]>([
    [
      'target health: a failing target is looked at again after 5 s, doubling to 5 min',
      waits(defaultHealthTiming.retryMinMs, defaultHealthTiming.retryMaxMs, 8),
      [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000],
    ],
    [
      'plugin host restarts: 0.5 s doubling to 30 s',
      waits(restartBackoff.firstMs, restartBackoff.maxMs, 9),
      [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000],
    ],
    [
      'pane reconnects (attempts 1, 2 …): 2 s doubling to 30 s',
      [1, 2, 3, 4, 5, 6, 50].map(reconnectDelayMs),
      [2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000],
    ],
    ['the registry lock: 1 ms doubling to 8 ms', waits(lockBackoff.firstMs, lockBackoff.maxMs, 6), [1, 2, 4, 8, 8, 8]],
    ['a retry before the first waits the first wait', [backoffMs(-1, 100, 1000)], [100]],
    ['a thousandth retry waits the ceiling, not Infinity', [backoffMs(1000, 100, 1000)], [1000]],
  ])('%s', (_name, got, expected) => {
    expect(got).toEqual(expected);
  });

  it.each<[number, number]>([
    [0, 8],
    [0.5, 12],
    [0.999, 15.992],
  ])('jittered(8) with random() = %s waits %s ms', (r, expected) => {
    expect(jittered(8, () => r)).toBeCloseTo(expected);
  });
});
