// The id of a message too long to read whole, from the few bytes of it that were kept.

/** A request id as JSON-RPC has it. */
export type CutId = string | number;

/** The id a too-long line was sent with, from its first or last bytes (where clients write it); null if not there. */
export function idOfCut(head: string, tail: string): CutId | null {
  // Only where it can be the message's own id: first after `{` (and jsonrpc), or last before the closing `}`.
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
  const found =
    new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}\s*,`).exec(head)?.[1] ??
    new RegExp(String.raw`,\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail)?.[1];
  return found === undefined ? null : (JSON.parse(found) as CutId);
}
