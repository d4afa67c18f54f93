// Small pure formatters for what the panels print: clock times, durations, short generations.

export function clockTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleTimeString([], { hour12: false, hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${Math.round(s % 60)}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function elapsed(fromIso: string, toIso: string | null, now: number): string {
  const from = Date.parse(fromIso);
  const to = toIso ? Date.parse(toIso) : now;
  return Number.isFinite(from) && Number.isFinite(to) ? duration(Math.max(0, to - from)) : '';
}

/** Generations are opaque hashes or counters: the first 7 characters tell them apart. */
export function shortGeneration(generation: string): string {
  return generation.length > 8 ? generation.slice(0, 7) : generation;
}

/** How long ago an ISO time was, coarsely ("just now", "12 s ago", "3 min ago"). */
export function ago(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 3) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min ago` : `${Math.round(m / 60)} h ago`;
}

/**
 * How Activity shows a call's outcome: its status, except that a command that ran and exited non-zero is not "ok" (a
 * green ok for `make` that exited 2 said the opposite of what happened).
 */
export function callOutcome(e: { status: string; exit_code?: number | null | undefined }): {
  kind: string;
  label: string;
} {
  if (e.status === 'ok' && typeof e.exit_code === 'number' && e.exit_code !== 0)
    return { kind: 'exit', label: `exit ${e.exit_code}` };
  return { kind: e.status, label: e.status };
}
