// Which pane lies next to another in a direction, by geometry (as tmux and VS Code move between panes).
import type { Rect } from './layoutTree.js';

export type FocusDirection = 'left' | 'right' | 'up' | 'down';

const EPS = 1e-6;

function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.min(a1, b1) - Math.max(a0, b0);
}

/**
 * The nearest pane beyond the edge of `from` in `dir` that shares some of that edge; among equally near
 * ones, the one sharing most of it, then the one first in reading order (top, then left). No wrap-around.
 */
export function neighbourInDirection(
  rects: ReadonlyMap<string, Rect>,
  from: string,
  dir: FocusDirection,
): string | undefined {
  const f = rects.get(from);
  if (!f) return undefined;
  let best: { id: string; gap: number; shared: number; r: Rect } | undefined;
  for (const [id, r] of rects) {
    if (id === from) continue;
    const horizontal = dir === 'left' || dir === 'right';
    const gap =
      dir === 'right'
        ? r.x - (f.x + f.w)
        : dir === 'left'
          ? f.x - (r.x + r.w)
          : dir === 'down'
            ? r.y - (f.y + f.h)
            : f.y - (r.y + r.h);
    if (gap < -EPS) continue;
    const shared = horizontal ? overlap(f.y, f.y + f.h, r.y, r.y + r.h) : overlap(f.x, f.x + f.w, r.x, r.x + r.w);
    if (shared <= EPS) continue;
    const better =
      !best ||
      gap < best.gap - EPS ||
      (Math.abs(gap - best.gap) <= EPS &&
        (shared > best.shared + EPS ||
          (Math.abs(shared - best.shared) <= EPS &&
            (r.y < best.r.y - EPS || (Math.abs(r.y - best.r.y) <= EPS && r.x < best.r.x)))));
    if (better) best = { id, gap, shared, r };
  }
  return best?.id;
}
