// The handles that trade room between parts of the window: the dock's height under the terminals and the sidebar's
// width beside them. Drag, arrow keys, Home/End, or a double click back to the default; remembered per browser.
import { useEffect, useState, type KeyboardEvent, type PointerEvent } from 'react';

/** Follows a pointer dragging a handle until it lets go; the window shows the resize cursor meanwhile. */
export function dragHandle(
  e: PointerEvent<HTMLElement>,
  sideways: boolean,
  move: (ev: globalThis.PointerEvent) => void,
): void {
  e.preventDefault();
  const el = e.currentTarget;
  el.setPointerCapture(e.pointerId);
  const up = (): void => {
    el.removeEventListener('pointermove', move);
    el.removeEventListener('pointerup', up);
    document.body.classList.remove('resizing', 'resizing--col');
  };
  el.addEventListener('pointermove', move);
  el.addEventListener('pointerup', up);
  document.body.classList.add('resizing', ...(sideways ? ['resizing--col'] : []));
}

export interface SizeRule {
  /** localStorage key. */
  key: string;
  min: number;
  /** The most it may take of the window now. */
  max(): number;
  initial: number;
  step: number;
}

export const dockHeight: SizeRule = {
  key: 'switchboard.dockHeight',
  min: 96,
  initial: 216,
  step: 24,
  max: () => Math.max(96, Math.round(window.innerHeight * 0.7)),
};

export const sidebarWidth: SizeRule = {
  key: 'switchboard.sidebarWidth',
  min: 180,
  initial: 256,
  step: 24,
  // The terminals keep at least half the window.
  max: () => Math.max(180, Math.min(560, Math.round(window.innerWidth * 0.5))),
};

function clamp(rule: SizeRule, size: number): number {
  return Math.min(rule.max(), Math.max(rule.min, Math.round(size)));
}

/** The remembered size under a rule; a smaller window makes it give way. */
export function useRememberedSize(rule: SizeRule): [number, (size: number) => void] {
  const [size, setSize] = useState(() => {
    const saved = Number(window.localStorage.getItem(rule.key));
    return Number.isFinite(saved) && saved > 0 ? clamp(rule, saved) : rule.initial;
  });
  useEffect(() => {
    window.localStorage.setItem(rule.key, String(size));
  }, [rule, size]);
  useEffect(() => {
    const onResize = (): void => setSize((s) => clamp(rule, s));
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, [rule]);
  return [size, (s) => setSize(clamp(rule, s))];
}

interface HandleProps {
  rule: SizeRule;
  size: number;
  onChange(size: number): void;
  /**
   * 'row': a horizontal bar dragged up (grows the part below it); 'column': a vertical bar dragged right (grows the
   * part left of it).
   */
  along: 'row' | 'column';
  label: string;
  className: string;
}

export function ResizeHandle({ rule, size, onChange, along, label, className }: HandleProps) {
  const grows = along === 'row' ? { key: 'ArrowUp', less: 'ArrowDown' } : { key: 'ArrowRight', less: 'ArrowLeft' };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    const start = along === 'row' ? e.clientY : e.clientX;
    const startSize = size;
    dragHandle(e, along === 'column', (ev) =>
      onChange(along === 'row' ? startSize + (start - ev.clientY) : startSize + (ev.clientX - start)),
    );
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key === grows.key) onChange(size + rule.step);
    else if (e.key === grows.less) onChange(size - rule.step);
    else if (e.key === 'Home') onChange(rule.max());
    else if (e.key === 'End') onChange(rule.min);
    else return;
    e.preventDefault();
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a focusable splitter with a value, not a thematic break (<hr>)
    <div
      className={className}
      role="separator"
      aria-orientation={along === 'row' ? 'horizontal' : 'vertical'}
      aria-label={label}
      aria-valuemin={rule.min}
      aria-valuemax={rule.max()}
      aria-valuenow={size}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
      onDoubleClick={() => onChange(rule.initial)}
    />
  );
}
