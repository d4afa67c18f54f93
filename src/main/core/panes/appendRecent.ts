// The replay buffer's cut: what is kept of a pane's recent output for a window that resumes it.

/** Output kept for a window that comes back (a reload): about a few screens of a busy build, cut at a line start. */
export const RECENT_MAX_CHARS = 256 * 1024;

/**
 * Appends to the replay buffer; over the limit the oldest part goes, cut after a newline so replay starts on a line.
 */
export function appendRecent(recent: string, data: string, max = RECENT_MAX_CHARS): string {
  const next = recent + data;
  if (next.length <= max) return next;
  const cut = next.length - max;
  // Only a newline near the cut counts; searching further would scan the whole buffer when there is none.
  const nl = next.slice(cut, cut + 4096).indexOf('\n');
  return nl >= 0 ? next.slice(cut + nl + 1) : next.slice(cut);
}
