// Plugs background processes into a Core: the tools' ProcessManager service and the processes.* methods.
import { SwitchboardError } from '../../../../shared/errors.js';
import type { Core, CoreExtension } from '../../core.js';
import { ProcessManager, attachProcessManager } from '../../processes/processManager.js';
import { DEFAULT_LOG_LINES } from '../../tools/process.js';

export const agentToolsExtension: CoreExtension = (core: Core) => {
  const processes = new ProcessManager({
    onChanged: (list) => core.emit('processes.changed', list),
    onOutput: (session_id, data) => core.emit('process.output', { session_id, data }),
  });
  attachProcessManager(core, processes);
  core.onClose(() => processes.shutdown());
  core.dispatcher.provide({ processes });

  core.handle('processes.list', async ({ execution_target }) => processes.list(execution_target ? { target: execution_target } : {}));
  core.handle('processes.log', async ({ session_id, lines }) => ({ output: processes.log(session_id, lines ?? DEFAULT_LOG_LINES).output }));
  core.handle('processes.kill', async ({ session_id }) => {
    if (!session_id) throw new SwitchboardError('bad_request', 'processes.kill needs a session_id');
    return processes.kill(session_id);
  });
};
