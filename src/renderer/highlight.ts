// Splits a flagged command into plain and highlighted runs from the policy's [start, end) spans.

export interface Segment {
  text: string;
  flagged: boolean;
}

/**
 * Spans are clipped to the text, sorted and merged where they overlap or touch; the runs cover the text exactly once.
 */
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

const REDACTED = '[redacted]';

/**
 * The policy's spans, which index the original command, carried over to its masked text (`redact` of it): the kept
 * runs are found in the original in order, and each `[redacted]` stands for what lies between them. Flagged text
 * stays flagged when the secret in it is masked. Undefined when the masked text is not the original with parts
 * replaced by `[redacted]` (then the caller shows it without highlights).
 */
export function maskedSpans(
  original: string,
  masked: string,
  spans: ReadonlyArray<readonly [number, number]> = [],
): Array<[number, number]> | undefined {
  const pieces = masked.split(REDACTED);
  const esc = (t: string): string => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${pieces.map(esc).join('([\\s\\S]+?)')}$`, 'd').exec(original) as
    | (RegExpExecArray & { indices: Array<[number, number]> })
    | null;
  if (!m) return undefined;
  // For each masked position, the original [start, end) it shows: a kept character one to one, a [redacted] its secret.
  const map: Array<[number, number]> = [];
  pieces.forEach((piece, i) => {
    const start = i === 0 ? 0 : m.indices[i]![1];
    for (let k = 0; k < piece.length; k++) map.push([start + k, start + k + 1]);
    const secret = m.indices[i + 1];
    if (secret) for (let k = 0; k < REDACTED.length; k++) map.push([secret[0], secret[1]]);
  });
  const out: Array<[number, number]> = [];
  for (const [a, b] of spans) {
    const hit = map.flatMap(([x, y], at) => (x < b && y > a ? [at] : []));
    if (hit.length) out.push([hit[0]!, hit.at(-1)! + 1]);
  }
  return out;
}

/** "1:05", "0:09": the time left before a pending approval is denied. */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
