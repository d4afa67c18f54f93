// Registers the agent tools with a Dispatcher: terminal (foreground and background), process, file tools, execute_code, list_targets.
import type { TargetInfo } from '../../../../shared/targets.js';
import type { Dispatcher } from '../dispatcher.js';
import type { ProcessManager } from '../../processes/processManager.js';
import { executeCodeTool } from './executeCode.js';
import { patchTool } from './patch.js';
import { processTool } from './process.js';
import { readFileTool } from './readFile.js';
import { searchFilesTool } from './searchFiles.js';
import { terminalTool } from './terminal.js';
import { writeFileTool } from './writeFile.js';

export interface AgentToolDeps {
  dispatcher: Dispatcher;
  processes: ProcessManager;
  listTargets: () => TargetInfo[];
  defaultTarget: () => string | undefined;
}

export function registerAgentTools(deps: AgentToolDeps): void {
  const { dispatcher: d, processes } = deps;
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
  d.register('list_targets', async () => ({ targets: deps.listTargets(), default_target: deps.defaultTarget() }), { targetless: true });
}
