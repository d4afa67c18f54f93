// Stands in for the MCP SDK's types.js in `switchboard mcp`'s bundle (scripts/build.mjs puts it there), for the SDK's
// stdio and Streamable HTTP transports, the only parts of the SDK the bridge runs. The SDK's types build its several
// hundred zod schemas as they load, which grows a process by about 15 MB; the transports use one of them, the check
// that a message is JSON-RPC, which core/mcp/jsonRpcMessage.ts makes without zod. Its failure carries the answer the
// message gets (`-32600 Invalid Request`, with its id), which the SDK's would not.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { invalidRequest, messageProblem, type MessageId } from '../../core/platform/index.js';

/** A line that is JSON but no JSON-RPC message: what it is answered with. */
export class InvalidMessage extends Error {
  constructor(readonly answer: { id: MessageId | null; code: number; message: string }) {
    super(answer.message);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const JSONRPCMessageSchema = {
  parse(value: unknown): JSONRPCMessage {
    const problem = messageProblem(value);
    if (problem !== undefined) throw new InvalidMessage(invalidRequest(value, problem));
    return value as JSONRPCMessage;
  },
};

export const isJSONRPCRequest = (value: unknown): boolean =>
  isObject(value) && 'method' in value && 'id' in value && messageProblem(value) === undefined;

export const isJSONRPCResultResponse = (value: unknown): boolean =>
  isObject(value) && 'result' in value && messageProblem(value) === undefined;

/** As the SDK's InitializedNotificationSchema: not strict, and without the JSON-RPC envelope. */
export const isInitializedNotification = (value: unknown): boolean =>
  isObject(value) &&
  value.method === 'notifications/initialized' &&
  (value.params === undefined ||
    messageProblem({ jsonrpc: '2.0', method: 'notifications/initialized', params: value.params }) === undefined);
