// The MCP face of the tools: one tool list derived from the tool declarations (core/tools), calls handed to the Core's
// dispatcher.
//
// The low-level SDK Server is used on purpose: McpServer.registerTool would validate arguments itself, so an MCP
// client would get the SDK's error instead of the dispatcher's (one path, one error: e.g. the hint to use
// execution_target instead of `target`). The JSON schemas are still generated from the same zod schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type ProgressNotification,
  type ProgressToken,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import * as z from 'zod';
import { errorLine, toErrorPayload } from '../../../shared/errors.js';
import type { ToolResult } from '../../../shared/tools.js';
import type { ProgressNote } from '../../../shared/api.js';
import { toolDefs } from '../tools/index.js';
import { plainJsonSchema } from './plainJsonSchema.js';

/**
 * `signal` aborts when the client cancels (notifications/cancelled) or its transport closes (a dropped HTTP request).
 * `progress` is given when the client asked for progress (a progressToken): it sends notifications/progress.
 */
export type ToolCaller = (
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  progress?: (note: ProgressNote) => void,
) => Promise<ToolResult>;

/**
 * A zod schema as MCP carries it: JSON Schema in MCP's default dialect, which it does not name, in the plain forms
 * every validator takes (plainJsonSchema.ts).
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  delete json.$schema;
  return plainJsonSchema(json);
}

let tools: readonly Tool[] | undefined;
/**
 * The tool list, read from the tool declarations. It depends only on them, never on the current targets, so it is
 * byte-stable while targets come and go (clients cache it); the targets themselves are found with list_targets.
 * Built on the first tools/list, not at start: `switchboard mcp` answers initialize without converting every schema.
 */
export function mcpTools(): readonly Tool[] {
  return (tools ??= Object.freeze(
    toolDefs.map((def) => ({
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: jsonSchema(def.args, 'input') as Tool['inputSchema'],
      // Every field a result may carry and no other: a client that validates (the SDK's does) checks each result.
      outputSchema: jsonSchema(def.result, 'output') as Tool['outputSchema'],
      annotations: { title: def.title, ...def.annotations },
    })),
  ));
}

export const MCP_INSTRUCTIONS =
  'Switchboard routes commands and file operations to named execution targets (the local machine, SSH hosts, ' +
  'Docker containers, plugin sandboxes). Call list_targets to see them. Every tool takes execution_target; without ' +
  'it the default target is used. Each target keeps its own cwd and background processes; relative paths resolve ' +
  "against the chosen target's cwd. Results say which execution_target and generation they ran on.";

/** A tool result as MCP content: the JSON for the model to read, and the same object as structured content. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result };
}

export function toCallToolError(err: unknown): CallToolResult {
  const p = toErrorPayload(err);
  return { content: [{ type: 'text', text: `${p.code}: ${errorLine(p)}` }], isError: true };
}

/**
 * A Server builds an Ajv of its own unless it is handed a validator, and /mcp builds a Server per request. Ours is
 * one for the process, and its Ajv is built on first use (eliciting input, which Switchboard never does).
 */
let ajv: AjvJsonSchemaValidator | undefined;
const sharedValidator: jsonSchemaValidator = {
  getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

/**
 * A JSON-RPC error as the SDK's Server sends it (its `code`, its `message`). Not an McpError: that one's message starts
 * with "MCP error -32602: ", and a client that builds an McpError from the answer writes that prefix once more.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a tools/call is answered with: the tool's result, or its failure as a tool error. */
export type CallAnswer = { result: ToolResult } | { failed: CallToolResult };

/**
 * One tools/call, for the SDK's Server and for /mcp's own answer (mcpHttp.ts) alike. `progressToken`: the client asked
 * for progress, which goes out through `notify`. A tool that does not exist is thrown as a ProtocolError: the request
 * named nothing callable, which is not a tool's failure.
 */
export async function answerCall(
  call: ToolCaller,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  progressToken: ProgressToken | undefined,
  notify: (notification: ProgressNotification) => void,
): Promise<CallAnswer> {
  const progress =
    progressToken === undefined
      ? undefined
      : (note: ProgressNote): void => notify({ method: 'notifications/progress', params: { progressToken, ...note } });
  try {
    return { result: await call(name, args, signal, progress) };
  } catch (err) {
    const p = toErrorPayload(err);
    if (p.code === 'unknown_tool') throw new ProtocolError(ErrorCode.InvalidParams, errorLine(p));
    return { failed: toCallToolError(err) };
  }
}

export function createMcpServer(call: ToolCaller, version = '0.1.0'): Server {
  const server = new Server(
    { name: 'switchboard', title: 'Switchboard', version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: MCP_INSTRUCTIONS,
      jsonSchemaValidator: sharedValidator,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...mcpTools()] }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const answer = await answerCall(
      call,
      req.params.name,
      (req.params.arguments ?? {}) as Record<string, unknown>,
      extra.signal,
      req.params._meta?.progressToken,
      // A client that went away is cancelled by its transport.
      (notification) => void extra.sendNotification(notification).catch(() => undefined),
    );
    return 'result' in answer ? toCallToolResult(answer.result) : answer.failed;
  });
  return server;
}
