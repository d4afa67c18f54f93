// A tab's panes as a tree of binary splits: pure operations (split, remove, resize), the rectangles they draw in, and
// the saved form.
import type { SavedSplit } from '../../shared/api.js';

/** `right`: b sits to the right of a; `down`: b sits below a. `ratio` is a's share of the split's length. */
export type SplitDir = 'right' | 'down';

export type LayoutNode =
  | { kind: 'pane'; paneId: string }
  | { kind: 'split'; id: string; dir: SplitDir; ratio: number; a: LayoutNode; b: LayoutNode };

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A divider between a split's two sides, in the same unit square as the panes. */
export interface Divider {
  splitId: string;
  dir: SplitDir;
  ratio: number;
  rect: Rect;
  span: Rect;
}

export const MIN_RATIO = 0.1;
export const MAX_RATIO = 0.9;

export const leaf = (paneId: string): LayoutNode => ({ kind: 'pane', paneId });

export function clampRatio(r: number): number {
  return Number.isFinite(r) ? Math.min(MAX_RATIO, Math.max(MIN_RATIO, r)) : 0.5;
}

/** The panes in reading order: a before b, depth first. */
export function paneIdsOf(node: LayoutNode): string[] {
  return node.kind === 'pane' ? [node.paneId] : [...paneIdsOf(node.a), ...paneIdsOf(node.b)];
}

/** The pane replaced by a split holding it (a) and the new pane (b). Unknown pane: the tree unchanged. */
export function splitAt(
  node: LayoutNode,
  paneId: string,
  newPaneId: string,
  dir: SplitDir,
  splitId: string,
): LayoutNode {
  if (node.kind === 'pane') {
    return node.paneId === paneId ? { kind: 'split', id: splitId, dir, ratio: 0.5, a: node, b: leaf(newPaneId) } : node;
  }
  const a = splitAt(node.a, paneId, newPaneId, dir, splitId);
  const b = a === node.a ? splitAt(node.b, paneId, newPaneId, dir, splitId) : node.b;
  return a === node.a && b === node.b ? node : { ...node, a, b };
}

/** The tree without the pane; its sibling takes the parent split's place. Undefined when nothing is left. */
export function removePane(node: LayoutNode, paneId: string): LayoutNode | undefined {
  if (node.kind === 'pane') return node.paneId === paneId ? undefined : node;
  const a = removePane(node.a, paneId);
  const b = removePane(node.b, paneId);
  if (!a) return b;
  if (!b) return a;
  return a === node.a && b === node.b ? node : { ...node, a, b };
}

export function setRatio(node: LayoutNode, splitId: string, ratio: number): LayoutNode {
  if (node.kind === 'pane') return node;
  if (node.id === splitId) return { ...node, ratio: clampRatio(ratio) };
  const a = setRatio(node.a, splitId, ratio);
  const b = setRatio(node.b, splitId, ratio);
  return a === node.a && b === node.b ? node : { ...node, a, b };
}

function halves(r: Rect, dir: SplitDir, ratio: number): [Rect, Rect] {
  return dir === 'right'
    ? [
        { ...r, w: r.w * ratio },
        { ...r, x: r.x + r.w * ratio, w: r.w * (1 - ratio) },
      ]
    : [
        { ...r, h: r.h * ratio },
        { ...r, y: r.y + r.h * ratio, h: r.h * (1 - ratio) },
      ];
}

/** Where each pane sits in the unit square (0..1 on both axes). */
export function paneRects(
  node: LayoutNode,
  r: Rect = { x: 0, y: 0, w: 1, h: 1 },
  out = new Map<string, Rect>(),
): Map<string, Rect> {
  if (node.kind === 'pane') return out.set(node.paneId, r);
  const [ra, rb] = halves(r, node.dir, node.ratio);
  paneRects(node.a, ra, out);
  return paneRects(node.b, rb, out);
}

/**
 * Every split's divider: `rect` is the line between the halves, `span` the split's whole area (what a drag measures
 * against).
 */
export function dividers(node: LayoutNode, r: Rect = { x: 0, y: 0, w: 1, h: 1 }, out: Divider[] = []): Divider[] {
  if (node.kind === 'pane') return out;
  const [ra, rb] = halves(r, node.dir, node.ratio);
  const rect = node.dir === 'right' ? { x: rb.x, y: r.y, w: 0, h: r.h } : { x: r.x, y: rb.y, w: r.w, h: 0 };
  out.push({ splitId: node.id, dir: node.dir, ratio: node.ratio, rect, span: r });
  dividers(node.a, ra, out);
  return dividers(node.b, rb, out);
}

/** The saved form: leaves are indexes into the tab's pane list (reading order), so targets stay in one place. */
export function toSaved(node: LayoutNode, order: readonly string[]): SavedSplit {
  if (node.kind === 'pane') return Math.max(0, order.indexOf(node.paneId));
  return {
    dir: node.dir,
    ratio: Math.round(node.ratio * 1000) / 1000,
    a: toSaved(node.a, order),
    b: toSaved(node.b, order),
  };
}

/**
 * The tree back from its saved form over fresh pane ids. A saved tree that does not use every pane exactly
 * once (an older save, a hand edit) gives panes side by side instead, so no pane is ever lost.
 */
export function fromSaved(
  saved: SavedSplit | undefined,
  paneIds: readonly string[],
  newSplitId: () => string,
): LayoutNode | undefined {
  if (paneIds.length === 0) return undefined;
  const used = new Set<number>();
  const build = (s: SavedSplit): LayoutNode | undefined => {
    if (typeof s === 'number') {
      const id = paneIds[s];
      if (id === undefined || used.has(s)) return undefined;
      used.add(s);
      return leaf(id);
    }
    const a = build(s.a);
    const b = a && build(s.b);
    return a && b ? { kind: 'split', id: newSplitId(), dir: s.dir, ratio: clampRatio(s.ratio), a, b } : undefined;
  };
  const tree = saved === undefined ? undefined : build(saved);
  if (tree && used.size === paneIds.length) return tree;
  return sideBySide(paneIds, newSplitId);
}

/** Panes in one row of equal widths (the layout before nested splits existed). */
export function sideBySide(paneIds: readonly string[], newSplitId: () => string): LayoutNode | undefined {
  const [first, ...rest] = paneIds;
  if (first === undefined) return undefined;
  if (rest.length === 0) return leaf(first);
  const tail = sideBySide(rest, newSplitId);
  return tail
    ? { kind: 'split', id: newSplitId(), dir: 'right', ratio: 1 / paneIds.length, a: leaf(first), b: tail }
    : leaf(first);
}
