// The targets-changed notice on fake timers: news at once (30 ms), "checked at" alone in the 5 s batch, bursts as one.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TargetInfo } from '../../../shared/targets.js';
import { TARGETS_LATER_MS, TARGETS_SOON_MS, TargetsChanged } from './targetsChanged.js';

let sent: number[];
let problemsSent: string[][];
let problems: string[];
let notice: TargetsChanged;

beforeEach(() => {
  vi.useFakeTimers();
  sent = [];
  problemsSent = [];
  problems = [];
  notice = new TargetsChanged({
    list: () => {
      sent.push(Date.now());
      return [] as TargetInfo[];
    },
    problems: () => problems,
    changed: () => undefined,
    problemsChanged: (p) => problemsSent.push(p),
  });
});

afterEach(() => {
  notice.close();
  vi.useRealTimers();
});

/** Each step: after `at` ms from the start, schedule(news). */
type Step = { at: number; news: boolean };

describe('TargetsChanged', () => {
  it.each<[string, Step[], number[]]>([
    ['news goes out after 30 ms', [{ at: 0, news: true }], [TARGETS_SOON_MS]],
    ['"checked at" alone waits for the 5 s batch', [{ at: 0, news: false }], [TARGETS_LATER_MS]],
    ['a burst of news is one notice', [0, 5, 10, 29].map((at) => ({ at, news: true })), [TARGETS_SOON_MS]],
    [
      'news replaces a pending batch, which does not go out again',
      [
        { at: 0, news: false },
        { at: 1000, news: true },
      ],
      [1000 + TARGETS_SOON_MS],
    ],
    [
      '"checked at" does not delay pending news',
      [
        { at: 0, news: true },
        { at: 10, news: false },
      ],
      [TARGETS_SOON_MS],
    ],
    [
      'a batch is not pushed back by later "checked at"',
      [0, 2000, 4000, 4999].map((at) => ({ at, news: false })),
      [TARGETS_LATER_MS],
    ],
    [
      'news after a sent batch goes out on its own',
      [
        { at: 0, news: false },
        { at: 6000, news: true },
      ],
      [TARGETS_LATER_MS, 6000 + TARGETS_SOON_MS],
    ],
  ])('%s', (_name, steps, expected) => {
    const start = Date.now();
    for (const step of steps) {
      vi.advanceTimersByTime(start + step.at - Date.now());
      notice.schedule(step.news);
    }
    vi.advanceTimersByTime(60_000);
    expect(sent.map((t) => t - start)).toEqual(expected);
  });

  it('a fleet whose looks only move "checked at" costs twelve notices a minute, not hundreds', () => {
    const start = Date.now();
    // 600 looks a minute (a fleet of hundreds every 60 s).
    for (let i = 0; i < 600; i++) {
      notice.schedule(false);
      vi.advanceTimersByTime(100);
    }
    expect(Date.now() - start).toBe(60_000);
    expect(sent).toHaveLength(12);
  });

  it('sends targets.problems only when the problems change', () => {
    const steps: [string[], string[][]][] = [
      [[], []],
      [['bad key'], [['bad key']]],
      [['bad key'], [['bad key']]],
      [[], [['bad key'], []]],
    ];
    for (const [now, expected] of steps) {
      problems = now;
      notice.schedule();
      vi.advanceTimersByTime(TARGETS_SOON_MS);
      expect(problemsSent).toEqual(expected);
    }
  });

  it('close() cancels a pending notice', () => {
    notice.schedule(false);
    notice.close();
    vi.advanceTimersByTime(60_000);
    expect(sent).toEqual([]);
  });
});
