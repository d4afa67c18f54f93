// When the person last pressed a key anywhere in the window, so a dialog that arrives unasked (an agent's approval
// request) can wait for a pause in their typing instead of taking keys meant for a terminal.

/** A dialog that arrives unasked takes the keyboard only after this long without a key press. */
export const QUIET_MS = 1200;
/** Enter and Space do not answer such a dialog until it has held the keyboard this long. */
export const ARM_MS = 600;

let lastKeyAt = 0;
let listening = false;

/**
 * Starts listening (once, when the window starts); keys are seen in the capture phase, before anything handles them.
 */
export function watchTyping(): void {
  if (listening) return;
  listening = true;
  window.addEventListener(
    'keydown',
    () => {
      lastKeyAt = performance.now();
    },
    true,
  );
}

/** How long ago the last key was pressed (Infinity before any). */
export function sinceLastKey(): number {
  return lastKeyAt ? performance.now() - lastKeyAt : Infinity;
}
