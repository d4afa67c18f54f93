// The `terminal` tool: a command on the target in its tracked cwd; a `cd` moves that identity's cwd only.
import type { TerminalArgs } from '../../../../shared/tools.js';
import type { z } from 'zod';
import type { ToolContext } from '../dispatcher.js';

/** Output kept per foreground command: head and tail halves, the cut said between them. */
export const MAX_OUTPUT_CHARS = 50_000;

export type BackgroundStarter = (ctx: ToolContext, command: string, cwd: string) => Promise<{ session_id: string }>;

export function terminalTool(startBackground?: BackgroundStarter) {
  return async (ctx: ToolContext, raw: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const args = raw as z.infer<typeof TerminalArgs>;
    const { snapshot, sessions } = ctx;
    const cwd = args.workdir ? await sessions.resolvePath(snapshot, args.workdir) : await sessions.cwd(snapshot);
    if (args.background) {
      if (!startBackground) throw new Error('background processes are not available');
      return startBackground(ctx, args.command, cwd);
    }
    const timeoutSec = args.timeout ?? snapshot.timeoutSec;
    const result = await ctx.env.exec(args.command, {
      cwd,
      // A workdir the caller named must exist; only the tracked cwd falls back (to its nearest parent, said).
      ...(args.workdir ? { cwdMustExist: true } : {}),
      timeoutMs: timeoutSec * 1000,
      maxOutputChars: MAX_OUTPUT_CHARS,
      signal: ctx.signal,
    });
    // The tracked cwd moves only when this command changed it (a cd, or a deleted cwd's fallback): a workdir is
    // for this call only, and a concurrent call that stayed put must not undo another call's cd.
    if (result.cwd !== cwd) sessions.setCwd(snapshot, result.cwd);
    return {
      output: result.output,
      exit_code: result.exitCode,
      cwd: result.cwd,
      ...(result.truncated ? { truncated: true } : {}),
      ...(result.timedOut ? { timed_out: true } : {}),
    };
  };
}
