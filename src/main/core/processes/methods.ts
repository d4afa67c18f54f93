// processes.*: the Processes panel's view of background processes (the agent's `process` tool is separate).
import type { Handlers } from '../platform/index.js';
import { DEFAULT_LOG_LINES, type ProcessManager } from './processManager.js';
import { whoActs, type RecordAction } from '../activity/index.js';

export function processMethods(deps: { processes: ProcessManager; record: RecordAction }) {
  const { processes, record } = deps;
  return {
    'processes.list': async ({ execution_target }) =>
      processes.list(execution_target ? { target: execution_target } : {}),
    'processes.log': async ({ session_id, lines }) => ({
      output: processes.log(session_id, lines ?? DEFAULT_LOG_LINES).output,
    }),
    'processes.kill': async ({ session_id }, ctx) => {
      // What is killed is named from the Core's record (the caller only sends the id).
      const known = (() => {
        try {
          return processes.info(session_id);
        } catch {
          // unknown id: the reply says so
          return undefined;
        }
      })();
      return record(
        {
          ...whoActs(ctx),
          tool: 'processes.kill',
          execution_target: known?.execution_target,
          generation: known?.generation,
          summary: known ? `kill ${session_id}: ${known.command}` : `kill ${session_id}`,
        },
        () => processes.kill(session_id),
      );
    },
  } satisfies Partial<Handlers>;
}
