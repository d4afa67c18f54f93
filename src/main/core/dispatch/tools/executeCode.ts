// The `execute_code` tool: a python3 script on the target whose tool calls are dispatched back pinned to the same identity.
import type { z } from 'zod';
import type { ExecuteCodeArgs } from '../../../../shared/tools.js';
import { DEFAULT_CODE_TIMEOUT_SEC, runCode } from '../../agent/codeRunner.js';
import type { ProcessManager } from '../../processes/processManager.js';
import type { ToolContext } from '../dispatcher.js';

export function executeCodeTool(processes?: ProcessManager) {
  return async (ctx: ToolContext, raw: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const args = raw as z.infer<typeof ExecuteCodeArgs>;
    const snapshot = ctx.snapshot;
    const cwd = await ctx.sessions.cwd(snapshot);
    // The identity counts as busy while the script runs, so nobody cleans it up underneath.
    const release = processes?.hold(snapshot.identity);
    try {
      return { ...(await runCode(ctx.env, {
        code: args.code,
        cwd,
        timeoutMs: (args.timeout ?? DEFAULT_CODE_TIMEOUT_SEC) * 1000,
        // Nested calls get the run's signal: they stop when the script times out, is cancelled or exits.
        call: (tool, nestedArgs, signal) => ctx.nested(tool, nestedArgs, signal),
        signal: ctx.signal,
      })) };
    } finally {
      release?.();
    }
  };
}
