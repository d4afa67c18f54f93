// Plugs the agent tools into a Core: background terminal, process, file tools, execute_code, and the processes.* methods.
import { SwitchboardError } from '../../../../shared/errors.js';
import type { Core, CoreExtension } from '../../core.js';
import { ProcessManager, attachProcessManager } from '../../processes/processManager.js';
import { executeCodeTool } from './executeCode.js';
import { patchTool } from './patch.js';
import { processTool, DEFAULT_LOG_LINES } from './process.js';
import { readFileTool } from './readFile.js';
import { searchFilesTool } from './searchFiles.js';
import { terminalTool } from './terminal.js';
import { writeFileTool } from './writeFile.js';

export const agentToolsExtension: CoreExtension = (core: Core) => {
  const processes = new ProcessManager({
    onChanged: (list) => core.emit('processes.changed', list),
    onOutput: (session_id, data) => core.emit('process.output', { session_id, data }),
  });
  attachProcessManager(core, processes);
  core.onClose(() => processes.shutdown());

  const d = core.dispatcher;
  d.register('terminal', terminalTool(async (ctx, command, cwd) => {
    const p = await processes.start(ctx.snapshot, ctx.env, command, cwd);
    return { session_id: p.session_id, status: p.status, command: p.command, cwd: p.cwd };
  }));
  d.register('process', processTool(processes), { targetless: true });
  d.register('read_file', readFileTool);
  d.register('write_file', writeFileTool);
  d.register('patch', patchTool);
  d.register('search_files', searchFilesTool);
  d.register('execute_code', executeCodeTool(processes));

  core.handle('processes.list', async ({ execution_target }) => processes.list(execution_target ? { target: execution_target } : {}));
  core.handle('processes.log', async ({ session_id, lines }) => ({ output: processes.log(session_id, lines ?? DEFAULT_LOG_LINES).output }));
  core.handle('processes.kill', async ({ session_id }) => {
    if (!session_id) throw new SwitchboardError('bad_request', 'processes.kill needs a session_id');
    return processes.kill(session_id);
  });
};
