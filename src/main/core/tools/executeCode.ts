// The `execute_code` tool: a python3 script on the target whose tool calls are dispatched back pinned to the same
// identity.
import { ExecuteCodeArgs, ExecuteCodeResult } from '../../../shared/tools.js';
import { DEFAULT_CODE_TIMEOUT_SEC, runCode } from './codeRunner/codeRunner.js';
import { argText, defineTool, firstLine } from './toolDef.js';
import { KEEP_OUTPUT_AFTER_CHARS, keptOutput } from './terminal.js';

export const executeCodeTool = defineTool({
  name: 'execute_code',
  title: 'Run a python script',
  description:
    'Run a python3 script on an execution target; tool calls inside it (import switchboard_tools) run on the ' +
    'same target. Limits: timeout (default 300 s), 50 tool calls, 50 KB of output.',
  args: ExecuteCodeArgs,
  result: ExecuteCodeResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // The first line, found without splitting the whole script into lines.
  summary: (args) => firstLine(argText(args, 'code')),
  approval: (args) => ({ kind: 'code', code: args.code, language: 'python' }),
  async handler(ctx, args) {
    const snapshot = ctx.snapshot;
    const cwd = await ctx.sessions.cwd(snapshot);
    // The identity counts as busy while the script runs, so nobody cleans it up underneath.
    const release = ctx.services.processes?.hold(snapshot.identity);
    const spool = ctx.keepOutput(KEEP_OUTPUT_AFTER_CHARS);
    try {
      const result = await runCode(ctx.env, {
        code: args.code,
        cwd,
        tools: ctx.tools,
        timeoutMs: (args.timeout ?? DEFAULT_CODE_TIMEOUT_SEC) * 1000,
        // Nested calls get the run's signal: they stop when the script times out, is cancelled or exits.
        call: (tool, nestedArgs, signal) => ctx.nested(tool, nestedArgs, signal),
        signal: ctx.signal,
        ...(spool ? { onOutput: (text: string) => spool.push(text) } : {}),
      });
      const outputId = keptOutput(spool, result.truncated === true);
      return { ...result, ...(outputId ? { output_id: outputId } : {}) };
    } catch (err) {
      spool?.discard();
      throw err;
    } finally {
      release?.();
    }
  },
});
