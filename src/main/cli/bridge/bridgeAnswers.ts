// The answers `switchboard mcp` writes itself, for requests the Core did not answer: no Core runs, the connection to it
// was lost, a line too long or not JSON-RPC. Each is one line a person can act on, in the words the Core uses.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_FILE_CONTENT_CHARS, MAX_REQUEST_BYTES, mib } from '../../../shared/limits.js';
import { isMessageId, type MessageId } from '../../core/platform/index.js';

/** What the bridge keeps of a request it sent, to answer it should the Core not. */
export interface Asked {
  id: MessageId;
  method: string;
}

/** A failure said to request `asked`: a tool error for a tool call (the model reads those), else a JSON-RPC error. */
export function failureAnswer(asked: Asked, text: string): JSONRPCMessage {
  return asked.method === 'tools/call'
    ? { jsonrpc: '2.0', id: asked.id, result: { content: [{ type: 'text', text }], isError: true } }
    : { jsonrpc: '2.0', id: asked.id, error: { code: -32000, message: text } };
}

/** A JSON-RPC error answer; `id` null when the message had none that could be read. */
export function errorAnswer(id: MessageId | null, code: number, message: string): JSONRPCMessage {
  // JSON-RPC answers an unreadable request with id null, which the SDK's types leave out.
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage;
}

export const PARSE_ERROR = { code: -32700, message: 'Parse error: Invalid JSON' };

export const TOO_LARGE =
  `Payload Too Large: the message is over the ${mib(MAX_REQUEST_BYTES)} a request may be; write a large file in ` +
  `parts of at most ${mib(MAX_FILE_CONTENT_CHARS)}, and put a long command in a file`;

/** The id a too-long line was sent with, from its first or last bytes (where clients write it); null if not there. */
export function idOfCut(head: string, tail: string): MessageId | null {
  // Only where it can be the message's own id: first after `{` (and jsonrpc), or last before the closing `}`.
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
  const found =
    new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}\s*,`).exec(head)?.[1] ??
    new RegExp(String.raw`,\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail)?.[1];
  if (found === undefined) return null;
  const id: unknown = JSON.parse(found);
  return isMessageId(id) ? id : null;
}

const START = 'start one with `switchboard serve` or `npm start`';

/** A request sent to a Core whose connection then broke: it may have run, and is never sent again. */
export const lostText = (url: string, reason: string): string =>
  `no_core: the connection to the Core at ${url} was lost (${reason}); the request may have run — the next request ` +
  'finds the Core again through core.json';

/** The Core named in core.json does not take connections (it never had the request). */
export const unreachableText = (url: string, reason: string): string =>
  `no_core: cannot reach the Core at ${url}: ${reason} — ${START}`;

export const UNAUTHORIZED_TEXT =
  'unauthorized: token not valid for this Core (HTTP 401) — the token in core.json may be stale; restart the Core';

/**
 * The answer a refused POST's body gives `asked` (a JSON-RPC error: the Core's own words, with the request's id), or
 * the status and the body's first line when the body is no such error (not the Core, or an older one).
 */
export function refusalAnswer(asked: Asked, status: number, body: string): JSONRPCMessage {
  let error: unknown;
  try {
    error = (JSON.parse(body) as { error?: unknown }).error;
  } catch {
    // not JSON: said by its status below
  }
  const e = error as { code?: unknown; message?: unknown } | undefined;
  if (e && Number.isSafeInteger(e.code) && typeof e.message === 'string')
    return errorAnswer(asked.id, e.code as number, e.message);
  const first = body.split('\n')[0]?.trim();
  const why = first ? `HTTP ${status}: ${first}` : `HTTP ${status}`;
  return failureAnswer(asked, `no_core: the Core refused the request (${why}) — update or restart the Core`);
}

/** An error's short name for a person: its code (ECONNREFUSED), else its message. */
export function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  if (typeof code === 'string') return code;
  return typeof e?.message === 'string' ? e.message : String(err);
}
