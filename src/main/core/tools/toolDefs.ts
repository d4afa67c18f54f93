// Every agent tool, in the order MCP lists them: the one list the dispatcher, MCP and execute_code read.
import { executeCodeTool } from './executeCode.js';
import { listTargetsTool } from './listTargets.js';
import { patchTool } from './patch.js';
import { processTool } from './process.js';
import { readFileTool } from './readFile.js';
import { readOutputTool } from './readOutput.js';
import { searchFilesTool } from './searchFiles.js';
import { terminalTool } from './terminal.js';
import type { ToolDef } from './toolDef.js';
import { writeFileTool } from './writeFile.js';

export const toolDefs: readonly ToolDef[] = [
  terminalTool,
  processTool,
  readFileTool,
  writeFileTool,
  patchTool,
  searchFilesTool,
  executeCodeTool,
  listTargetsTool,
  readOutputTool,
];

/** A tool's declaration by name, or undefined. */
export function toolDef(name: string): ToolDef | undefined {
  return toolDefs.find((d) => d.name === name);
}
