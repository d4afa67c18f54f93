// A modal dialog frame: backdrop, title, Escape to cancel, focus kept inside and given back on close.
import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

const focusable = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Modal({ title, onCancel, children, width = 440, describedBy }: { title: string; onCancel(): void; children: ReactNode; width?: number; describedBy?: string }) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    // Everything behind the dialog is inert: no clicks, no focus, no typing into a terminal nobody sees.
    const backdrop = box.current?.parentElement;
    const madeInert: HTMLElement[] = [];
    for (const el of Array.from(backdrop?.parentElement?.children ?? [])) {
      if (el === backdrop || !(el instanceof HTMLElement) || el.inert) continue;
      el.inert = true;
      madeInert.push(el);
    }
    const first = box.current?.querySelector<HTMLElement>('[data-autofocus]') ?? box.current?.querySelector<HTMLElement>(focusable);
    first?.focus();
    return () => {
      for (const el of madeInert) el.inert = false;
      before?.focus?.();
    };
  }, []);
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onCancel();
      return;
    }
    if (e.key !== 'Tab' || !box.current) return;
    const items = [...box.current.querySelectorAll<HTMLElement>(focusable)];
    const first = items[0];
    const last = items.at(-1);
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={describedBy} ref={box} onKeyDown={onKeyDown} style={{ width }}>
        <h2 className="modal__title" id={titleId}>{title}</h2>
        {children}
      </div>
    </div>
  );
}
