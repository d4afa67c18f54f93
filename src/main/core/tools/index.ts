// The face of core/tools: what other folders may import from it (docs/architecture.md).
export { canMountTmpfs, fullDisk, type FullDisk, fullDiskCase, readOnlyCase, symlinkCase } from './fullDisk.js';
export { listTargetsTool } from './listTargets.js';
export { toolMethods } from './methods.js';
export { readFileTool } from './readFile.js';
export { searchFilesTool } from './searchFiles.js';
export { MAX_OUTPUT_CHARS } from './terminal.js';
export type { ToolContext, ToolDef, ToolHandler, ToolServices } from './toolDef.js';
export { toolDefs } from './toolDefs.js';
export { describeToolsOn } from './toolsSuite.js';
export { writeFileTool } from './writeFile.js';
