// The `list_targets` tool: the execution targets with their backend, state and cwd, and the default one.
import { SwitchboardError } from '../../../shared/errors.js';
import { ListTargetsArgs, ListTargetsResult } from '../../../shared/tools.js';
import { defineTool } from './toolDef.js';

export const listTargetsTool = defineTool({
  name: 'list_targets',
  title: 'List execution targets',
  description: 'List the execution targets with their backend, state and cwd.',
  args: ListTargetsArgs,
  result: ListTargetsResult,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  summary: () => '',
  approval: () => undefined,
  targetless: true,
  drainSafe: true,
  async handler(ctx) {
    const list = ctx.services.listTargets;
    if (!list) throw new SwitchboardError('internal', 'list_targets is not wired to a target table');
    return list();
  },
});
