import { describe, expect, it } from 'vitest';
import {
  dividers,
  fromSaved,
  leaf,
  paneIdsOf,
  paneRects,
  removePane,
  setRatio,
  sideBySide,
  splitAt,
  toSaved,
  type LayoutNode,
} from './layoutTree.js';

let n = 0;
const sid = (): string => `s${++n}`;

/** a | (b over c) */
const tree: LayoutNode = {
  kind: 'split',
  id: 'root',
  dir: 'right',
  ratio: 0.5,
  a: leaf('a'),
  b: { kind: 'split', id: 'inner', dir: 'down', ratio: 0.5, a: leaf('b'), b: leaf('c') },
};

describe('layout tree', () => {
  it.each([
    ['split a leaf right', leaf('a'), 'a', 'right', ['a', 'n']],
    ['split a nested pane down', tree, 'b', 'down', ['a', 'b', 'n', 'c']],
    ['split an unknown pane: unchanged', tree, 'zz', 'down', ['a', 'b', 'c']],
  ] as const)('%s', (_name, root, at, dir, order) => {
    expect(paneIdsOf(splitAt(root, at, 'n', dir, 'x'))).toEqual(order);
  });

  it.each([
    ['the only pane', leaf('a'), 'a', undefined],
    ['a nested pane: its sibling takes the split', tree, 'b', ['a', 'c']],
    ['the left side: the right subtree becomes the root', tree, 'a', ['b', 'c']],
    ['an unknown pane: same tree', tree, 'zz', ['a', 'b', 'c']],
  ] as const)('removes %s', (_name, root, id, order) => {
    const out = removePane(root, id);
    expect(out ? paneIdsOf(out) : undefined).toEqual(order);
  });

  it('keeps the same object when nothing changes (cheap re-renders)', () => {
    expect(removePane(tree, 'zz')).toBe(tree);
    expect(splitAt(tree, 'zz', 'n', 'right', 'x')).toBe(tree);
    expect(setRatio(tree, 'nope', 0.3)).toBe(tree);
  });

  it.each([
    [0.3, 0.3],
    [0.01, 0.1],
    [0.99, 0.9],
    [Number.NaN, 0.5],
  ])('clamps a ratio of %s to %s', (given, kept) => {
    const out = setRatio(tree, 'inner', given);
    expect(out.kind === 'split' && out.b.kind === 'split' ? out.b.ratio : -1).toBeCloseTo(kept);
  });

  it('lays panes out in the unit square and puts dividers between them', () => {
    const r = paneRects(setRatio(tree, 'root', 0.25));
    expect(r.get('a')).toEqual({ x: 0, y: 0, w: 0.25, h: 1 });
    expect(r.get('b')).toEqual({ x: 0.25, y: 0, w: 0.75, h: 0.5 });
    expect(r.get('c')).toEqual({ x: 0.25, y: 0.5, w: 0.75, h: 0.5 });
    const d = dividers(tree);
    expect(d.map((x) => [x.splitId, x.rect])).toEqual([
      ['root', { x: 0.5, y: 0, w: 0, h: 1 }],
      ['inner', { x: 0.5, y: 0.5, w: 0.5, h: 0 }],
    ]);
    expect(d[1]!.span).toEqual({ x: 0.5, y: 0, w: 0.5, h: 1 });
  });

  it('round-trips through the saved form onto new pane ids', () => {
    const saved = toSaved(tree, ['a', 'b', 'c']);
    expect(saved).toEqual({ dir: 'right', ratio: 0.5, a: 0, b: { dir: 'down', ratio: 0.5, a: 1, b: 2 } });
    const back = fromSaved(saved, ['x', 'y', 'z'], sid)!;
    expect(paneIdsOf(back)).toEqual(['x', 'y', 'z']);
    expect(toSaved(back, ['x', 'y', 'z'])).toEqual(saved);
  });

  it.each([
    ['no saved split (an older save)', undefined],
    ['a leaf used twice', { dir: 'right', ratio: 0.5, a: 0, b: 0 }],
    ['a pane left out', { dir: 'right', ratio: 0.5, a: 0, b: 1 }],
    ['an index past the list', { dir: 'down', ratio: 0.5, a: 0, b: { dir: 'down', ratio: 0.5, a: 1, b: 7 } }],
  ] as const)('falls back to panes side by side for %s', (_name, saved) => {
    const back = fromSaved(saved, ['x', 'y', 'z'], sid)!;
    expect(paneIdsOf(back)).toEqual(['x', 'y', 'z']);
    const r = paneRects(back);
    expect([...r.values()].every((rect) => rect.y === 0 && rect.h === 1)).toBe(true);
    expect(r.get('y')!.w).toBeCloseTo(1 / 3);
  });

  it('gives nothing for no panes, a leaf for one', () => {
    expect(sideBySide([], sid)).toBeUndefined();
    expect(fromSaved(0, ['x'], sid)).toEqual(leaf('x'));
  });
});
