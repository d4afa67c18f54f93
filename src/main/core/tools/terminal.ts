// The `terminal` tool: a command on the target in its tracked cwd; a `cd` moves that identity's cwd only.
import { TerminalArgs, TerminalResult } from '../../../shared/tools.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { argText, defineTool } from './toolDef.js';
import type { OutputSpool } from '../outputs/index.js';

/** The id of a cut result's whole output, kept for read_output; an output whose result was not cut is not kept. */
export function keptOutput(spool: OutputSpool | undefined, truncated: boolean): string | undefined {
  if (!spool) return undefined;
  if (truncated) return spool.finish();
  spool.discard();
  return undefined;
}

/** Output kept per foreground command: head and tail halves, the cut said between them. */
export const MAX_OUTPUT_CHARS = 50_000;
/**
 * Output longer than this is also kept whole on disk, so a cut result can give an output_id (read_output). Below the
 * result's own cap: the wrapper's lines count toward that cap but are never kept; a kept output whose result was not
 * cut after all is dropped.
 */
export const KEEP_OUTPUT_AFTER_CHARS = 40_000;

export const terminalTool = defineTool({
  name: 'terminal',
  title: 'Run a command',
  description:
    'Run a shell command on an execution target. The cwd is tracked per target: a cd in one call is seen by the next ' +
    'call on the same target only. Output over 50,000 chars is cut in the middle; read it whole with read_output and ' +
    'the output_id of the result.',
  args: TerminalArgs,
  result: TerminalResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  summary: (args) => (args.background ? '[bg] ' : '') + argText(args, 'command'),
  approval: (args) => ({
    kind: 'command',
    command: args.command,
    ...(args.workdir ? { workdir: args.workdir } : {}),
    ...(args.outside_sandbox ? { outside_sandbox: true } : {}),
  }),
  script: { doc: 'Run a shell command on this target; returns a dict with output, exit_code, cwd (or session_id).' },
  async handler(ctx, args) {
    const { snapshot, sessions } = ctx;
    const cwd = args.workdir ? await sessions.resolvePath(snapshot, args.workdir) : await sessions.cwd(snapshot);
    if (args.background) {
      if (args.outside_sandbox)
        throw new SwitchboardError(
          'bad_request',
          'outside_sandbox is for a foreground command',
          'run it without background, or in the sandbox',
        );
      const processes = ctx.services.processes;
      if (!processes) throw new SwitchboardError('unsupported', 'background processes are not available');
      const p = await processes.start(snapshot, ctx.env, args.command, cwd);
      return { session_id: p.session_id, status: p.status, command: p.command, cwd: p.cwd };
    }
    const timeoutSec = args.timeout ?? snapshot.timeoutSec;
    const spool = ctx.keepOutput(KEEP_OUTPUT_AFTER_CHARS);
    const result = await ctx.env
      .exec(args.command, {
        cwd,
        // A workdir the caller named must exist; only the tracked cwd falls back (to its nearest parent, said).
        ...(args.workdir ? { cwdMustExist: true } : {}),
        timeoutMs: timeoutSec * 1000,
        maxOutputChars: MAX_OUTPUT_CHARS,
        signal: ctx.signal,
        ...(spool ? { onOutput: (text: string) => spool.push(text) } : {}),
        // Reaches the handler only after a person approved this one call (CommandApprovals always asks for it).
        ...(args.outside_sandbox ? { outsideSandbox: true } : {}),
      })
      // A call that failed gives no result to page: what it printed is not kept.
      .catch((err: unknown) => {
        spool?.discard();
        throw err;
      });
    // The tracked cwd moves only when this command changed it (a cd, or a deleted cwd's fallback): a workdir is
    // for this call only, and a concurrent call that stayed put must not undo another call's cd.
    if (result.cwd !== cwd) sessions.setCwd(snapshot, result.cwd);
    // A cwd kept from the Core's last run that could not be restored: said once, before what the command printed.
    const note = sessions.takeCwdNote(snapshot.identity);
    const outputId = keptOutput(spool, result.truncated);
    return {
      output: note ? `${note}\n${result.output}` : result.output,
      exit_code: result.exitCode,
      cwd: result.cwd,
      ...(result.truncated ? { truncated: true } : {}),
      ...(outputId ? { output_id: outputId } : {}),
      ...(result.timedOut ? { timed_out: true } : {}),
    };
  },
});
