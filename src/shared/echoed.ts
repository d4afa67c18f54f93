// How much of a name or path a person supplied an error echoes back: enough to recognise it, never a wall of text
// (a 5,000-character execution_target was once echoed whole).

/** The most of one echoed name or path an error message holds. */
export const MAX_ECHOED_CHARS = 80;

/** How much of the end is kept: a path's file name, a name's distinguishing tail. */
const TAIL_CHARS = 24;

/** `text` as an error echoes it: whole when short, else its start, "…" and its end, MAX_ECHOED_CHARS in all. */
export function echoed(text: string, max = MAX_ECHOED_CHARS): string {
  if (text.length <= max) return text;
  const tail = Math.min(TAIL_CHARS, Math.floor(max / 3));
  return `${text.slice(0, max - tail - 1)}…${text.slice(text.length - tail)}`;
}

/**
 * Every run of non-blank characters longer than MAX_ECHOED_CHARS in a message, cut as `echoed` cuts it: what the
 * one error family (errors.ts) does to each message and hint, so no place that forgot to cut a name echoes it whole.
 */
export function cutLongRuns(message: string, max = MAX_ECHOED_CHARS): string {
  if (message.length <= max) return message;
  return message.replace(new RegExp(`[^\\s]{${max + 1},}`, 'g'), (run) => echoed(run, max));
}
