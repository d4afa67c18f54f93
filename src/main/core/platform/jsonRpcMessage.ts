// What makes a parsed value one JSON-RPC message as MCP takes it (the MCP SDK's JSONRPCMessageSchema, written out
// without zod), and the `-32600 Invalid Request` answer of one that is not. No imports: `switchboard mcp` gives it to
// the SDK's transports in place of the SDK's zod schemas (scripts/build.mjs), and /mcp words its refusals with it.

/** A request id (or progress token): a string, or an integer zod's `int()` takes (a safe one). */
export type MessageId = string | number;

export const isMessageId = (value: unknown): value is MessageId =>
  typeof value === 'string' || Number.isSafeInteger(value);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The _meta key of a request that belongs to a task (the SDK's RELATED_TASK_META_KEY). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** Why `meta` is not the `_meta` of a request's params or a result, or undefined when it is one. */
function metaProblem(meta: unknown): string | undefined {
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return '_meta must be an object';
  if (meta.progressToken !== undefined && !isMessageId(meta.progressToken))
    return '_meta.progressToken must be a string or an integer';
  const task = meta[RELATED_TASK];
  if (task !== undefined && !(isObject(task) && typeof task.taskId === 'string'))
    return `_meta["${RELATED_TASK}"] must be an object with a string taskId`;
  return undefined;
}

/** The keys each kind of message may have (the SDK's schemas are strict: any other key makes it invalid). */
const kinds = {
  request: ['jsonrpc', 'id', 'method', 'params'],
  notification: ['jsonrpc', 'method', 'params'],
  result: ['jsonrpc', 'id', 'result'],
  error: ['jsonrpc', 'id', 'error'],
} as const;

/** Which kind `message` means to be, by its keys: the one whose problems are worth naming. */
function intendedKind(message: Record<string, unknown>): keyof typeof kinds {
  if ('method' in message) return 'id' in message ? 'request' : 'notification';
  return 'error' in message ? 'error' : 'result';
}

function kindProblem(kind: keyof typeof kinds, m: Record<string, unknown>): string | undefined {
  const extra = Object.keys(m).find((key) => !(kinds[kind] as readonly string[]).includes(key));
  if (extra !== undefined) return `a ${kind} has no key "${extra}"`;
  if (m.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (kind === 'request' || kind === 'notification') {
    if (kind === 'request' && !isMessageId(m.id)) return 'id must be a string or an integer';
    if (typeof m.method !== 'string') return 'method must be a string';
    if (m.params === undefined) return undefined;
    return isObject(m.params) ? metaProblem(m.params._meta) : 'params must be an object';
  }
  if (kind === 'result') {
    if (!isMessageId(m.id)) return 'id must be a string or an integer';
    return isObject(m.result) ? metaProblem(m.result._meta) : 'result must be an object';
  }
  if (m.id !== undefined && !isMessageId(m.id)) return 'id must be a string or an integer';
  const { error } = m;
  if (!isObject(error)) return 'error must be an object';
  if (!Number.isSafeInteger(error.code)) return 'error.code must be an integer';
  return typeof error.message === 'string' ? undefined : 'error.message must be a string';
}

/**
 * Why `value` (parsed JSON) is not one JSON-RPC message of MCP — a request, a notification, a result or an error, as
 * the SDK's JSONRPCMessageSchema takes them — or undefined when it is one. A batch (an array) is not one message.
 */
export function messageProblem(value: unknown): string | undefined {
  if (Array.isArray(value)) return 'a batch is not one message';
  if (!isObject(value)) return 'a message is a JSON object';
  // The SDK's union takes a message any of its four strict schemas takes: only the one its keys allow can.
  return kindProblem(intendedKind(value), value);
}

/** The answer of a message that is JSON but no JSON-RPC message: its own id when it has a usable one, else null. */
export function invalidRequest(
  value: unknown,
  problem: string,
): { id: MessageId | null; code: number; message: string } {
  const id = isObject(value) && isMessageId(value.id) ? value.id : null;
  return { id, code: -32600, message: `Invalid Request: ${problem}` };
}
