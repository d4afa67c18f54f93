// The agent tools of DESIGN.md: argument and result schemas shared by MCP, `switchboard call` and the UI.
import { z } from 'zod';

const executionTarget = z
  .string()
  .min(1)
  .optional()
  .describe('Name of the execution target to run on (see list_targets). Defaults to terminal.default_target.');

export const TerminalArgs = z.strictObject({
  command: z.string().min(1).describe('Shell command to run.'),
  workdir: z.string().min(1).optional().describe("Directory to run in; relative paths resolve against the target's cwd. Defaults to the target's tracked cwd."),
  timeout: z.number().int().positive().max(86_400).optional().describe('Seconds before the command is killed (foreground only).'),
  background: z.boolean().optional().describe('Start in the background and return a session_id for the process tool.'),
  execution_target: executionTarget,
});

export const ProcessArgs = z.strictObject({
  action: z.enum(['list', 'poll', 'log', 'wait', 'kill', 'write']).describe('What to do.'),
  session_id: z.string().min(1).optional().describe('The background process (from terminal with background: true).'),
  data: z.string().optional().describe('Text to write to the process stdin (action write).'),
  lines: z.number().int().positive().max(100_000).optional().describe('Lines of output for action log (default 200).'),
  timeout: z.number().positive().max(86_400).optional().describe('Seconds to wait for action wait (default 30).'),
  execution_target: executionTarget,
});

export const ReadFileArgs = z.strictObject({
  path: z.string().min(1).describe("File path; relative to the target's cwd."),
  offset: z.number().int().positive().optional().describe('First line to read, 1-based.'),
  limit: z.number().int().positive().max(100_000).optional().describe('Number of lines to read (default 2000).'),
  execution_target: executionTarget,
});

export const WriteFileArgs = z.strictObject({
  path: z.string().min(1).describe("File path; relative to the target's cwd. Parent directories are created."),
  content: z.string().describe('The whole new content of the file.'),
  execution_target: executionTarget,
});

export const PatchArgs = z.strictObject({
  path: z.string().min(1).describe("File path; relative to the target's cwd."),
  old_string: z.string().min(1).describe('Exact text to replace.'),
  new_string: z.string().describe('Replacement text.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
  execution_target: executionTarget,
});

export const SearchFilesArgs = z.strictObject({
  pattern: z.string().min(1).describe('A regular expression (target: content) or a glob (target: files).'),
  target: z.enum(['content', 'files']).describe('Search mode: file contents or file names. Not the execution target.'),
  path: z.string().min(1).optional().describe("Directory to search; relative to the target's cwd."),
  file_glob: z.string().min(1).optional().describe('Only search files whose name matches this glob (content mode).'),
  limit: z.number().int().positive().max(10_000).optional().describe('Most matches to return (default 50).'),
  context: z.number().int().min(0).max(20).optional().describe('Lines of context around each content match.'),
  execution_target: executionTarget,
});

export const ExecuteCodeArgs = z.strictObject({
  code: z.string().min(1).describe('A python3 script. `import switchboard_tools` gives terminal, read_file, write_file, patch, search_files, pinned to this target.'),
  timeout: z.number().int().positive().max(3_600).optional().describe('Seconds before the script is killed (default 300).'),
  execution_target: executionTarget,
});

export const ListTargetsArgs = z.strictObject({});

export const toolArgSchemas = {
  terminal: TerminalArgs,
  process: ProcessArgs,
  read_file: ReadFileArgs,
  write_file: WriteFileArgs,
  patch: PatchArgs,
  search_files: SearchFilesArgs,
  execute_code: ExecuteCodeArgs,
  list_targets: ListTargetsArgs,
} as const;

export type ToolName = keyof typeof toolArgSchemas;
export const toolNames = Object.keys(toolArgSchemas) as ToolName[];
export type ToolArgs<T extends ToolName> = z.infer<(typeof toolArgSchemas)[T]>;

export const toolDescriptions: Record<ToolName, string> = {
  terminal: 'Run a shell command on an execution target. The cwd is tracked per target: a cd in one call is seen by the next call on the same target only.',
  process: 'Manage background processes started by terminal with background: true: list, poll, log, wait, kill, write.',
  read_file: 'Read a text file on an execution target. content has cat -n style line numbers ("     1\\t…": number right-aligned in 6 columns, a tab, the line); at most limit lines and ~100 KB per call, with total_lines and next_offset when more is left.',
  write_file: 'Write a whole file on an execution target, creating parent directories.',
  patch: 'Replace exact text in a file on an execution target.',
  search_files: 'Search file contents (POSIX extended regex, as grep -E) or file names (glob) on an execution target; .git and node_modules are skipped.',
  execute_code: 'Run a python3 script on an execution target; tool calls inside it (import switchboard_tools) run on the same target. Limits: timeout (default 300 s), 50 tool calls, 50 KB of output.',
  list_targets: 'List the execution targets with their backend, state and cwd.',
};

/** Honest MCP annotations per tool. */
export const toolAnnotations: Record<ToolName, { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }> = {
  terminal: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  process: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  read_file: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  write_file: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  patch: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  search_files: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  execute_code: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  list_targets: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** Every tool result says where it ran. */
export const ToolResultBase = z.object({ execution_target: z.string(), generation: z.string() });

export const TerminalResult = ToolResultBase.extend({
  output: z.string().optional(),
  exit_code: z.number().int().optional(),
  cwd: z.string().optional(),
  session_id: z.string().optional(),
  truncated: z.boolean().optional(),
  timed_out: z.boolean().optional(),
});
export type TerminalResult = z.infer<typeof TerminalResult>;

/** A tool result: the base plus tool-specific fields. */
export const ToolResult = ToolResultBase.catchall(z.unknown());
export type ToolResult = z.infer<typeof ToolResult>;

/** Who made a tool call: shown in the Activity feed and the audit log. */
export const ToolClient = z.enum(['mcp', 'cli', 'ui', 'execute_code', 'test']);
export type ToolClient = z.infer<typeof ToolClient>;
