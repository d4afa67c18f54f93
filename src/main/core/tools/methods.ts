// tool.call: one tool call through the Dispatcher, from the window, `switchboard call` or the MCP bridge.
import type { ProgressNote } from '../../../shared/api.js';
import type { ToolClient, ToolResult } from '../../../shared/tools.js';
import type { Handlers } from '../platform/index.js';

/** The part of the Dispatcher this needs. */
export interface ToolCaller {
  call(
    tool: string,
    args: Record<string, unknown>,
    opts: { client: ToolClient; signal?: AbortSignal; progress?: (note: ProgressNote) => void },
  ): Promise<ToolResult>;
}

/**
 * What a caller may say it is: names that carry no privilege (a person's `ui` and nested `execute_code` it may not).
 */
const claimable = new Set<ToolClient>(['cli', 'mcp', 'test']);

export function toolMethods(deps: { dispatcher: ToolCaller }) {
  return {
    // A caller that names itself (cli, mcp) is recorded as such; otherwise the connection's kind. A caller that goes
    // away withdraws what it was waiting on (a held approval). Progress goes only to a caller that asked for it.
    'tool.call': async ({ tool, args, client, progress }, ctx) =>
      deps.dispatcher.call(tool, args, {
        client: client && claimable.has(client) ? client : ctx.client,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(progress && ctx.progress ? { progress: ctx.progress } : {}),
      }),
  } satisfies Partial<Handlers>;
}
