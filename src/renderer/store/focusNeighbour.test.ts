import { describe, expect, it } from 'vitest';
import { neighbourInDirection, type FocusDirection } from './focusNeighbour.js';
import type { Rect } from './layoutTree.js';

/**
 *  +-----+-----+
 *  |     |  b  |
 *  |  a  +--+--+
 *  |     |c |d |
 *  +-----+--+--+
 *  |     e     |
 *  +-----------+
 */
const rects = new Map<string, Rect>([
  ['a', { x: 0, y: 0, w: 0.5, h: 0.6 }],
  ['b', { x: 0.5, y: 0, w: 0.5, h: 0.3 }],
  ['c', { x: 0.5, y: 0.3, w: 0.25, h: 0.3 }],
  ['d', { x: 0.75, y: 0.3, w: 0.25, h: 0.3 }],
  ['e', { x: 0, y: 0.6, w: 1, h: 0.4 }],
]);

describe('moving focus between panes by geometry', () => {
  it.each<[string, FocusDirection, string | undefined]>([
    ['a', 'right', 'b'], // b and c both touch a's right edge equally: the top one wins
    ['a', 'down', 'e'],
    ['a', 'left', undefined],
    ['a', 'up', undefined],
    ['b', 'left', 'a'],
    ['b', 'down', 'c'], // c and d share b's bottom edge equally: the left one wins
    ['c', 'right', 'd'],
    ['c', 'up', 'b'],
    ['c', 'left', 'a'],
    ['d', 'left', 'c'],
    ['d', 'down', 'e'],
    ['e', 'up', 'a'], // a shares the most of e's top edge
    ['e', 'down', undefined],
    ['zz', 'down', undefined],
  ])('from %s going %s lands on %s', (from, dir, to) => {
    expect(neighbourInDirection(rects, from, dir)).toBe(to);
  });
});
