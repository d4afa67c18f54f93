// Toasts: one line of message plus the hint, for errors from Core calls and other things the person should notice.
import { create } from 'zustand';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  message: string;
  hint?: string;
  code?: string;
}

interface ToastsState {
  toasts: Toast[];
  push(t: Omit<Toast, 'id'>): void;
  dismiss(id: number): void;
}

let nextId = 1;
const LIFETIME_MS = 7000;
const MAX_SHOWN = 4;

export const useToasts = create<ToastsState>((set, get) => ({
  toasts: [],
  push: (t) => {
    // The same error twice in a row (e.g. keystrokes into a dead pane) shows once.
    const last = get().toasts.at(-1);
    if (last && last.message === t.message && last.hint === t.hint) return;
    const id = nextId++;
    set((s) => ({ toasts: [...s.toasts, { ...t, id }].slice(-MAX_SHOWN) }));
    setTimeout(() => get().dismiss(id), LIFETIME_MS);
  },
  dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
}));

/** Anything thrown → one line (+ hint); never a stack trace. */
export function toastError(err: unknown): void {
  const e = err as { message?: unknown; hint?: unknown; code?: unknown };
  const message = (typeof e?.message === 'string' ? e.message : String(err)).split('\n')[0] || 'something went wrong';
  useToasts.getState().push({
    kind: 'error',
    message,
    ...(typeof e?.hint === 'string' ? { hint: e.hint } : {}),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  });
}
