// Splits a flagged command into plain and highlighted runs from the policy's [start, end) spans.

export interface Segment {
  text: string;
  flagged: boolean;
}

/** Spans are clipped to the text, sorted and merged where they overlap or touch; the runs cover the text exactly once. */
export function highlightSegments(text: string, spans: ReadonlyArray<readonly [number, number]> = []): Segment[] {
  const clipped = spans
    .map(([a, b]) => [Math.max(0, Math.min(a, text.length)), Math.max(0, Math.min(b, text.length))] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const merged: Array<[number, number]> = [];
  for (const [a, b] of clipped) {
    const last = merged.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  const out: Segment[] = [];
  let at = 0;
  for (const [a, b] of merged) {
    if (a > at) out.push({ text: text.slice(at, a), flagged: false });
    out.push({ text: text.slice(a, b), flagged: true });
    at = b;
  }
  if (at < text.length || out.length === 0) out.push({ text: text.slice(at), flagged: false });
  return out;
}

/** "1:05", "0:09": the time left before a pending approval is denied. */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
