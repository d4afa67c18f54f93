// The handle between a split's two sides: drag it, or focus it and use the arrow keys (Home/End for the limits).
import type { CSSProperties, KeyboardEvent, PointerEvent } from 'react';
import { useLayout } from '../store/layout.js';
import { MAX_RATIO, MIN_RATIO, type Divider } from '../store/layoutTree.js';
import { dragHandle } from './ResizeHandle.js';

const STEP = 0.02;

const pct = (n: number): string => `${(n * 100).toFixed(4)}%`;

export function PaneDivider({ tabId, divider }: { tabId: string; divider: Divider }) {
  const { splitId, dir, ratio, rect, span } = divider;
  const vertical = dir === 'right';
  const set = (r: number): void => useLayout.getState().resizeSplit(tabId, splitId, r);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    const panel = e.currentTarget.parentElement?.getBoundingClientRect();
    if (!panel) return;
    dragHandle(e, vertical, (ev) =>
      set(
        vertical
          ? (ev.clientX - panel.left - span.x * panel.width) / (span.w * panel.width)
          : (ev.clientY - panel.top - span.y * panel.height) / (span.h * panel.height),
      ),
    );
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const less = vertical ? 'ArrowLeft' : 'ArrowUp';
    const more = vertical ? 'ArrowRight' : 'ArrowDown';
    if (e.key === less) set(ratio - STEP);
    else if (e.key === more) set(ratio + STEP);
    else if (e.key === 'Home') set(MIN_RATIO);
    else if (e.key === 'End') set(MAX_RATIO);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  const style: CSSProperties = vertical
    ? { left: pct(rect.x), top: pct(rect.y), height: pct(rect.h) }
    : { top: pct(rect.y), left: pct(rect.x), width: pct(rect.w) };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable splitter with a value, not a thematic break (<hr>)
    <div
      className={`pane-divider pane-divider--${vertical ? 'col' : 'row'}`}
      style={style}
      role="separator"
      aria-orientation={vertical ? 'vertical' : 'horizontal'}
      aria-label={vertical ? 'Resize panes side by side' : 'Resize panes above and below'}
      aria-valuemin={Math.round(MIN_RATIO * 100)}
      aria-valuemax={Math.round(MAX_RATIO * 100)}
      aria-valuenow={Math.round(ratio * 100)}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
      onDoubleClick={() => set(0.5)}
    />
  );
}
