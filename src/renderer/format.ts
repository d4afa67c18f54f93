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
