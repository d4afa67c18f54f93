// The `process` tool: list, poll, log, wait, kill and write background processes, scoped by execution_target when
// given.
import { SwitchboardError } from '../../../shared/errors.js';
import { redact } from '../../../shared/redact.js';
import { DEFAULT_SLICE_CHARS, ProcessArgs, ProcessResult } from '../../../shared/tools.js';
import { DEFAULT_LOG_LINES, type ProcessScope } from '../processes/index.js';
import { argText, defineTool, hasSnapshot } from './toolDef.js';
import { echoed } from '../../../shared/echoed.js';

export const DEFAULT_WAIT_SEC = 30;

/**
 * Targetless: without execution_target every process is visible by session_id (also after its
 * target was drained or removed). With execution_target only that target's processes are, by name, so the
 * processes of a removed target or of an older generation of it can still be listed, read and killed.
 */
export const processTool = defineTool({
  name: 'process',
  title: 'Background processes',
  description:
    'Manage background processes started by terminal with background: true: list, poll, ' +
    'log (the last lines, or a slice from offset as read_output pages), wait, kill, write.',
  args: ProcessArgs,
  result: ProcessResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  summary: (args) => `${argText(args, 'action')}${args.session_id ? ' ' + argText(args, 'session_id') : ''}`,
  // Input to a running shell is a command like any other (`sh` in the background, then `rm -rf ~` written to it).
  approval: (args) =>
    args.action === 'write' && args.data
      ? { kind: 'input', data: args.data, ...(args.session_id ? { process: args.session_id } : {}) }
      : undefined,
  targetless: true,
  actsOn: (args, services) => {
    if (!args.session_id || !services.processes) return undefined;
    try {
      return services.processes.info(args.session_id).execution_target;
    } catch {
      return undefined; // unknown: the handler says so
    }
  },
  drainSafe: true,
  async handler(ctx, args) {
    const manager = ctx.services.processes;
    if (!manager) throw new SwitchboardError('unsupported', 'background processes are not available');
    const scope: ProcessScope = args.execution_target !== undefined ? { target: args.execution_target } : {};
    if (args.action === 'list') {
      // Another caller's command may hold a secret: an agent reads every command redacted, as audit.jsonl keeps it.
      const processes = manager.list(scope).map((p) => ({ ...p, command: redact(p.command) }));
      if (scope.target !== undefined && processes.length === 0 && !hasSnapshot(ctx)) {
        throw new SwitchboardError(
          'unknown_target',
          `unknown target "${echoed(scope.target)}" (and no processes of that name are kept)`,
          'see list_targets',
        );
      }
      // The dispatcher fills in the snapshot's target and generation when the target still exists.
      return { ...(scope.target !== undefined ? { execution_target: scope.target } : {}), processes };
    }
    const id = args.session_id;
    if (!id)
      throw new SwitchboardError(
        'bad_request',
        `process: action ${args.action} needs a session_id`,
        'list the processes with action "list"',
      );
    let out: Record<string, unknown>;
    switch (args.action) {
      case 'poll':
        out = { ...manager.poll(id, scope) };
        break;
      case 'log':
        out = {
          ...manager.log(
            id,
            args.lines ?? DEFAULT_LOG_LINES,
            scope,
            args.offset !== undefined || args.limit !== undefined
              ? { offset: args.offset ?? 0, limit: args.limit ?? DEFAULT_SLICE_CHARS }
              : undefined,
          ),
        };
        break;
      case 'wait':
        out = { ...(await manager.wait(id, (args.timeout ?? DEFAULT_WAIT_SEC) * 1000, scope, ctx.signal)) };
        break;
      case 'kill':
        out = { ...(await manager.kill(id, scope)) };
        break;
      case 'write':
        if (args.data === undefined) throw new SwitchboardError('bad_request', 'process: action write needs data');
        out = manager.write(id, args.data, scope);
        break;
    }
    // A process's own target and generation, whatever the call was scoped to.
    const p = manager.info(id);
    if (typeof out.command === 'string') out.command = redact(out.command);
    return { ...out, execution_target: p.execution_target, generation: p.generation };
  },
});
