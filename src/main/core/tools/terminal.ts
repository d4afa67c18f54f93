// The `terminal` tool: a command on the target in its tracked cwd; a `cd` moves that identity's cwd only.
import { TerminalArgs, TerminalResult } from '../../../shared/tools.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { argText, defineTool } from './toolDef.js';

/** Output kept per foreground command: head and tail halves, the cut said between them. */
export const MAX_OUTPUT_CHARS = 50_000;

export const terminalTool = defineTool({
  name: 'terminal',
  title: 'Run a command',
  description:
    'Run a shell command on an execution target. The cwd is tracked per target: ' +
    'a cd in one call is seen by the next call on the same target only.',
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
    const result = await ctx.env.exec(args.command, {
      cwd,
      // A workdir the caller named must exist; only the tracked cwd falls back (to its nearest parent, said).
      ...(args.workdir ? { cwdMustExist: true } : {}),
      timeoutMs: timeoutSec * 1000,
      maxOutputChars: MAX_OUTPUT_CHARS,
      signal: ctx.signal,
      // Reaches the handler only after a person approved this one call (CommandApprovals always asks for it).
      ...(args.outside_sandbox ? { outsideSandbox: true } : {}),
    });
    // The tracked cwd moves only when this command changed it (a cd, or a deleted cwd's fallback): a workdir is
    // for this call only, and a concurrent call that stayed put must not undo another call's cd.
    if (result.cwd !== cwd) sessions.setCwd(snapshot, result.cwd);
    // A cwd kept from the Core's last run that could not be restored: said once, before what the command printed.
    const note = sessions.takeCwdNote(snapshot.identity);
    return {
      output: note ? `${note}\n${result.output}` : result.output,
      exit_code: result.exitCode,
      cwd: result.cwd,
      ...(result.truncated ? { truncated: true } : {}),
      ...(result.timedOut ? { timed_out: true } : {}),
    };
  },
});
