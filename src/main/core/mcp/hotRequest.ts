// The requests an initialized MCP client sends over and over (tools/call, tools/list, ping), recognized in the JSON of
// a POST without the SDK's schemas, so /mcp can answer them without building a Server (mcpHttp.ts). Only a message
// that the SDK would take exactly the same way is recognized: anything else (a batch, a notification, initialize, an
// extra key, a task-augmented call, an id or token of the wrong type) is left to the SDK, which gives its own answer
// or error. What is recognized is what the SDK's own schemas accept (JSONRPCRequestSchema, CallToolRequestSchema): the
// tool's arguments are still validated by the tool's zod schema in the dispatcher, as on every path.
import { RELATED_TASK_META_KEY, type ProgressToken, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export type HotRequest =
  | {
      method: 'tools/call';
      id: RequestId;
      name: string;
      args: Record<string, unknown>;
      /** Given when the client asked for progress: the call may send notifications/progress. */
      progressToken?: ProgressToken;
    }
  | { method: 'tools/list' | 'ping'; id: RequestId };

/** The keys a JSON-RPC request may have: JSONRPCRequestSchema is strict, so any other makes the message invalid. */
const requestKeys = new Set(['jsonrpc', 'id', 'method', 'params']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A request id or progress token as the SDK's schemas take it: a string, or an integer (zod's int is a safe one). */
function isIdLike(value: unknown): value is string | number {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** The progress token of a call's `_meta`, null when the `_meta` is one the SDK should look at itself. */
function progressOf(meta: unknown): { token?: ProgressToken } | null {
  if (meta === undefined) return {};
  // A call that belongs to a task is the SDK's business (Switchboard declares no tasks, and it answers that).
  if (!isPlainObject(meta) || RELATED_TASK_META_KEY in meta) return null;
  const token = meta.progressToken;
  if (token === undefined) return {};
  return isIdLike(token) ? { token } : null;
}

/** The request `raw` (a POST's parsed JSON) is, if it is one /mcp answers on its own; undefined for the SDK. */
export function hotRequest(raw: unknown): HotRequest | undefined {
  if (!isPlainObject(raw) || raw.jsonrpc !== '2.0' || !isIdLike(raw.id)) return undefined;
  for (const key in raw) if (!requestKeys.has(key)) return undefined;
  const { id, method, params } = raw;
  if (method === 'tools/list' || method === 'ping') {
    // With params (a cursor, a _meta) it is left to the SDK, which is not worth copying for a list asked once.
    return params === undefined ? { method, id } : undefined;
  }
  if (method !== 'tools/call' || !isPlainObject(params) || typeof params.name !== 'string') return undefined;
  // Asking for a task gets the SDK's refusal.
  if (Object.hasOwn(params, 'task')) return undefined;
  // Arguments are a record (a plain object, not null); one that names __proto__ is left to the SDK's own copy of it.
  const args = params.arguments === undefined ? {} : params.arguments;
  if (!isPlainObject(args) || Object.hasOwn(args, '__proto__')) return undefined;
  const progress = progressOf(params._meta);
  if (!progress) return undefined;
  return {
    method,
    id,
    name: params.name,
    args,
    ...(progress.token === undefined ? {} : { progressToken: progress.token }),
  };
}
