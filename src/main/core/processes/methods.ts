// processes.*: the Processes panel's view of background processes (the agent's `process` tool is separate).
import type { Handlers } from '../handlers.js';
import { DEFAULT_LOG_LINES } from '../tools/process.js';
import type { ProcessManager } from './processManager.js';

export function processMethods(deps: { processes: ProcessManager }) {
  const { processes } = deps;
  return {
    'processes.list': async ({ execution_target }) => processes.list(execution_target ? { target: execution_target } : {}),
    'processes.log': async ({ session_id, lines }) => ({ output: processes.log(session_id, lines ?? DEFAULT_LOG_LINES).output }),
    'processes.kill': async ({ session_id }) => processes.kill(session_id),
  } satisfies Partial<Handlers>;
}
