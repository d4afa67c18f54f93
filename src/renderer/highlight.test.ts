import { describe, expect, it } from 'vitest';
import { countdown, highlightSegments, maskedSpans } from './highlight.js';

describe('highlightSegments', () => {
  const cases: Array<[string, Array<[number, number]>, Array<[string, boolean]>]> = [
    ['rm -rf /tmp/x', [], [['rm -rf /tmp/x', false]]],
    [
      'rm -rf /tmp/x',
      [[0, 6]],
      [
        ['rm -rf', true],
        [' /tmp/x', false],
      ],
    ],
    [
      'cd a && rm -rf b',
      [[8, 16]],
      [
        ['cd a && ', false],
        ['rm -rf b', true],
      ],
    ],
    // Overlapping and touching spans merge; out-of-range ones are clipped; empty ones dropped.
    [
      'abcdefgh',
      [
        [4, 6],
        [1, 3],
        [2, 4],
        [7, 99],
        [5, 5],
      ],
      [
        ['a', false],
        ['bcdef', true],
        ['g', false],
        ['h', true],
      ],
    ],
    [
      'abc',
      [[-5, 1]],
      [
        ['a', true],
        ['bc', false],
      ],
    ],
    ['', [[0, 3]], [['', false]]],
  ];
  it.each(cases)('%s %j', (text, spans, want) => {
    const got = highlightSegments(text, spans);
    expect(got.map((s) => [s.text, s.flagged])).toEqual(want);
    expect(got.map((s) => s.text).join('')).toBe(text);
  });
});

describe('countdown', () => {
  it.each([
    [0, '0:00'],
    [-5, '0:00'],
    [999, '0:01'],
    [9_000, '0:09'],
    [65_000, '1:05'],
    [120_000, '2:00'],
  ])('%i ms → %s', (ms, want) => {
    expect(countdown(ms)).toBe(want);
  });
});

describe('maskedSpans', () => {
  it('carries the flagged spans over to the masked text; a flagged secret stays flagged as [redacted]', () => {
    const original = 'rm -rf x && curl -u a:Pw123 https://h';
    const masked = 'rm -rf x && curl -u a:[redacted] https://h';
    expect(maskedSpans(original, masked, [[0, 8]])).toEqual([[0, 8]]);
    const spans = maskedSpans(original, masked, [[17, 27]])!;
    expect(masked.slice(spans[0]![0], spans[0]![1])).toBe('-u a:[redacted]');
  });
  it('gives up (undefined) when the masked text is not the original with parts replaced', () => {
    expect(maskedSpans('abc', 'xyz', [[0, 1]])).toBeUndefined();
  });
});
