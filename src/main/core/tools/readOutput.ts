// The `read_output` tool: any slice of the whole output of a call whose result was cut, kept by the OutputStore.
import { SwitchboardError } from '../../../shared/errors.js';
import { DEFAULT_SLICE_CHARS, ReadOutputArgs, ReadOutputResult } from '../../../shared/tools.js';
import { argText, defineTool, hasSnapshot } from './toolDef.js';

/**
 * Targetless, like `process`: the output_id (128 random bits, given only in the result of the call that printed it)
 * finds the output. A call that names a target, or runs inside execute_code (pinned to its target), finds only that
 * target's outputs, so nothing is read under one target's name that came from another.
 */
export const readOutputTool = defineTool({
  name: 'read_output',
  title: 'Read a cut output',
  description:
    'Read the whole output of a terminal or execute_code call whose result was cut (truncated: true, with an ' +
    'output_id), a slice at a time: limit chars from offset. Outputs are kept for an hour and until Switchboard stops.',
  args: ReadOutputArgs,
  result: ReadOutputResult,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  summary: (args) => `${argText(args, 'output_id')}${typeof args.offset === 'number' ? ` from ${args.offset}` : ''}`,
  approval: () => undefined,
  targetless: true,
  drainSafe: true,
  script: { doc: 'Read a slice of a cut output by its output_id; returns a dict with output, next_offset, has_more.' },
  async handler(ctx, args) {
    const store = ctx.services.outputs;
    if (!store) throw new SwitchboardError('unsupported', 'outputs are not kept here');
    const target = hasSnapshot(ctx) ? ctx.snapshot.name : args.execution_target;
    return {
      ...store.read(args.output_id, { offset: args.offset ?? 0, limit: args.limit ?? DEFAULT_SLICE_CHARS, target }),
    };
  },
});
