// The handle between the terminals and the dock: drag (or arrow keys) to trade terminal rows for panel rows; remembered per browser.
import { useEffect, useState, type KeyboardEvent, type PointerEvent } from 'react';

const KEY = 'switchboard.dockHeight';
const MIN = 96;
const DEFAULT = 216;
const STEP = 24;

function maxHeight(): number {
  return Math.max(MIN, Math.round(window.innerHeight * 0.7));
}

function clamp(h: number): number {
  return Math.min(maxHeight(), Math.max(MIN, Math.round(h)));
}

export function useDockHeight(): [number, (h: number) => void] {
  const [height, setHeight] = useState(() => {
    const saved = Number(window.localStorage.getItem(KEY));
    return Number.isFinite(saved) && saved > 0 ? clamp(saved) : DEFAULT;
  });
  useEffect(() => {
    window.localStorage.setItem(KEY, String(height));
  }, [height]);
  useEffect(() => {
    // A smaller window must not leave the terminals with no room: the dock gives way.
    const onResize = (): void => setHeight((h) => clamp(h));
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  return [height, (h) => setHeight(clamp(h))];
}

export function DockSplitter({ height, onChange }: { height: number; onChange(h: number): void }) {
  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    e.preventDefault();
    const el = e.currentTarget;
    el.setPointerCapture(e.pointerId);
    const startY = e.clientY;
    const startH = height;
    const move = (ev: globalThis.PointerEvent): void => onChange(startH + (startY - ev.clientY));
    const up = (): void => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      document.body.classList.remove('resizing');
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
    document.body.classList.add('resizing');
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key === 'ArrowUp') onChange(height + STEP);
    else if (e.key === 'ArrowDown') onChange(height - STEP);
    else if (e.key === 'Home') onChange(maxHeight());
    else if (e.key === 'End') onChange(MIN);
    else return;
    e.preventDefault();
  };
  return (
    <div
      className="dock-splitter"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize panels"
      aria-valuemin={MIN}
      aria-valuemax={maxHeight()}
      aria-valuenow={height}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
      onDoubleClick={() => onChange(DEFAULT)}
    />
  );
}
