// A modal dialog frame: backdrop, title, Escape to cancel, focus kept inside and given back on close.
// A dialog that arrives unasked (`unasked`: an agent's request) waits for a pause in the person's typing before it
// takes the keyboard, so keys meant for a terminal neither answer it nor get lost; a click on it takes it at once, and
// that first click does what it says (the note that it waited goes only once the click is over: the buttons do not
// move under the pointer). It is an `alertdialog` (a request that needs an answer); the window's live region announces
// it meanwhile (announcer.ts).
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { ARM_MS, QUIET_MS, sinceLastKey } from '../../typingQuiet.js';

const focusable =
  'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), ' +
  '[tabindex]:not([tabindex="-1"])';

interface ModalProps {
  title: string;
  onCancel(): void;
  children: ReactNode;
  width?: number;
  describedBy?: string;
  /** Opened by something other than the person: wait for a pause in their typing before taking the keyboard. */
  unasked?: boolean;
}

export function Modal({ title, onCancel, children, width = 440, describedBy, unasked = false }: ModalProps) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  const [waiting, setWaiting] = useState(unasked);
  /**
   * When the dialog took the keyboard by itself (after a pause in the typing), for the guard against keys already on
   * their way; 0 when a click gave it the keyboard (the person chose to answer: nothing to guard against).
   */
  const tookKeyboardAt = useRef(0);
  const take = useRef<(byPointer: boolean) => void>(() => undefined);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const madeInert: HTMLElement[] = [];
    let taken = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let noteTimer: ReturnType<typeof setTimeout> | undefined;
    /** The waiting note goes after the pointer's click is over: its space going sooner moved the buttons under it. */
    const dropNoteAfterClick = (): void => {
      const drop = (): void => {
        window.removeEventListener('pointerup', later, true);
        noteTimer = setTimeout(() => setWaiting(false));
      };
      const later = (): void => drop();
      window.addEventListener('pointerup', later, true);
      // A pointer that never comes up here (released outside the window): the note goes anyway.
      noteTimer = setTimeout(drop, 5000);
    };
    take.current = (byPointer) => {
      if (taken) return;
      taken = true;
      clearTimeout(timer);
      if (byPointer) dropNoteAfterClick();
      else setWaiting(false);
      tookKeyboardAt.current = byPointer ? 0 : performance.now();
      // Everything behind the dialog is inert: no clicks, no focus, no typing into a terminal nobody sees.
      const backdrop = box.current?.parentElement;
      for (const el of Array.from(backdrop?.parentElement?.children ?? [])) {
        if (el === backdrop || !(el instanceof HTMLElement) || el.inert) continue;
        el.inert = true;
        madeInert.push(el);
      }
      const first =
        box.current?.querySelector<HTMLElement>('[data-autofocus]') ??
        box.current?.querySelector<HTMLElement>(focusable);
      first?.focus({ focusVisible: true } as FocusOptions);
    };
    const takeWhenQuiet = (): void => {
      const quietFor = sinceLastKey();
      // A pointer held down on the dialog is a click under way: it takes the keyboard itself when it comes up.
      if (quietFor >= QUIET_MS && !pointerDown) take.current(false);
      else timer = setTimeout(takeWhenQuiet, Math.max(50, QUIET_MS - quietFor));
    };
    let pointerDown = false;
    const down = (e: PointerEvent): void => {
      pointerDown = box.current?.contains(e.target as Node) === true;
    };
    const up = (): void => {
      pointerDown = false;
    };
    window.addEventListener('pointerdown', down, true);
    window.addEventListener('pointerup', up, true);
    if (unasked) {
      takeWhenQuiet();
    } else {
      take.current(false);
    }
    return () => {
      window.removeEventListener('pointerdown', down, true);
      window.removeEventListener('pointerup', up, true);
      clearTimeout(timer);
      clearTimeout(noteTimer);
      for (const el of madeInert) el.inert = false;
      if (taken) before?.focus?.();
    };
  }, [unasked]);
  const onKeyDownCapture = (e: KeyboardEvent): void => {
    // Keys already on their way when the dialog took the keyboard by itself do not answer it. A space typed into a
    // text field is text, and a dialog a click took is the person's at once: neither is held back.
    const since = performance.now() - tookKeyboardAt.current;
    if (!unasked || tookKeyboardAt.current === 0 || since >= ARM_MS) return;
    if (e.key === 'Enter' || (e.key === ' ' && !isTextField(e.target))) {
      e.preventDefault();
      e.stopPropagation();
    }
  };
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
    // A click beside a dialog that arrived unasked does not answer it.
    // biome-ignore lint/a11y/noStaticElementInteractions: a mouse convenience; Escape is the keyboard's way to cancel
    <div
      className="modal-backdrop"
      role="presentation"
      onMouseDown={(e) => e.target === e.currentTarget && !unasked && onCancel()}
    >
      {/* biome-ignore lint/a11y/noStaticElementInteractions: its role is dialog or alertdialog (chosen below) */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: its role is dialog or alertdialog (chosen below) */}
      <div
        className="modal"
        role={unasked ? 'alertdialog' : 'dialog'}
        // Modal once it holds the keyboard: before that the person still types in the window behind it.
        aria-modal={waiting ? undefined : true}
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        ref={box}
        onKeyDownCapture={onKeyDownCapture}
        onKeyDown={onKeyDown}
        onPointerDownCapture={() => take.current(true)}
        data-waiting={waiting || undefined}
        style={{ width }}
      >
        <h2 className="modal__title" id={titleId}>
          {title}
        </h2>
        {waiting && (
          <p className="modal__waiting" role="status">
            Waiting for a pause in your typing; click here to answer now.
          </p>
        )}
        {children}
      </div>
    </div>
  );
}

function isTextField(el: EventTarget): boolean {
  return (
    el instanceof HTMLTextAreaElement ||
    (el instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(el.type))
  );
}
