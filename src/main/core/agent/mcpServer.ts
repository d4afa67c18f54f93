// The MCP face of the tools: one tool list derived from src/shared/tools.ts, calls handed to the Core's dispatcher.
//
// The low-level SDK Server is used on purpose: McpServer.registerTool would validate arguments itself, so an MCP
// client would get the SDK's error instead of the dispatcher's (one path, one error: e.g. the hint to use
// execution_target instead of `target`). The JSON schemas are still generated from the same zod schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorLine, toErrorPayload } from '../../../shared/errors.js';
import { toolAnnotations, toolArgSchemas, toolDescriptions, toolNames, type ToolResult } from '../../../shared/tools.js';

export type ToolCaller = (tool: string, args: Record<string, unknown>) => Promise<ToolResult>;

const titles: Record<string, string> = {
  terminal: 'Run a command',
  process: 'Background processes',
  read_file: 'Read a file',
  write_file: 'Write a file',
  patch: 'Patch a file',
  search_files: 'Search files',
  execute_code: 'Run a python script',
  list_targets: 'List execution targets',
};

function inputSchema(tool: keyof typeof toolArgSchemas): Tool['inputSchema'] {
  const json = z.toJSONSchema(toolArgSchemas[tool], { io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json as Tool['inputSchema'];
}

/**
 * The tool list. It depends only on the contract, never on the current targets, so it is byte-stable while
 * targets come and go (clients cache it); the targets themselves are found with list_targets.
 */
export const mcpTools: readonly Tool[] = Object.freeze(
  toolNames.map((name) => ({
    name,
    title: titles[name] ?? name,
    description: toolDescriptions[name],
    inputSchema: inputSchema(name),
    annotations: { title: titles[name] ?? name, ...toolAnnotations[name] },
  })),
);

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

export function createMcpServer(call: ToolCaller, version = '0.1.0'): Server {
  const server = new Server({ name: 'switchboard', title: 'Switchboard', version }, { capabilities: { tools: { listChanged: false } }, instructions: MCP_INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...mcpTools] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    try {
      return toCallToolResult(await call(req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>));
    } catch (err) {
      return toCallToolError(err);
    }
  });
  return server;
}
