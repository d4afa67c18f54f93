// tool.call: one tool call through the Dispatcher, from the window, `switchboard call` or the MCP bridge.
import type { ToolClient, ToolResult } from '../../../shared/tools.js';
import type { Handlers } from '../handlers.js';

/** The part of the Dispatcher this needs. */
export interface ToolCaller {
  call(
    tool: string,
    args: Record<string, unknown>,
    opts: { client: ToolClient; signal?: AbortSignal },
  ): Promise<ToolResult>;
}

/**
 * What a caller may say it is: names that carry no privilege (a person's `ui` and nested `execute_code` it may not).
 */
const claimable = new Set<ToolClient>(['cli', 'mcp', 'test']);

export function toolMethods(deps: { dispatcher: ToolCaller }) {
  return {
    // A caller that names itself (cli, mcp) is recorded as such; otherwise the connection's kind. A caller that goes
    // away withdraws what it was waiting on (a held approval).
    'tool.call': async ({ tool, args, client }, ctx) =>
      deps.dispatcher.call(tool, args, {
        client: client && claimable.has(client) ? client : ctx.client,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      }),
  } satisfies Partial<Handlers>;
}
