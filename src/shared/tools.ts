// The agent tools of DESIGN.md: argument and result schemas shared by MCP, `switchboard call` and the UI.
import * as z from 'zod';
import { ToolResultBase, type ToolName } from './toolResult.js';
import { MAX_COMMAND_CHARS, MAX_FILE_CONTENT_CHARS, mib } from './limits.js';

// What a client of the Core needs (the names, the result's base, who called) lives in toolResult.ts, so that a
// client does not build every tool's schemas to make one call; it is part of this module's surface as before.
export { ToolClient, ToolResult, ToolResultBase, toolNames, type ToolName } from './toolResult.js';

const executionTarget = z
  .string()
  .min(1)
  .optional()
  .describe('Name of the execution target to run on (see list_targets). Defaults to terminal.default_target.');

/** The error of a text argument over its cap: its size, the cap, and what to do instead. */
const tooLong = (what: string, cap: number, instead: string) => ({
  error: (issue: { input?: unknown }) =>
    `the ${what} is ${mib(typeof issue.input === 'string' ? issue.input.length : 0)}, ` +
    `over the ${mib(cap)} it may be; ${instead}`,
});

export const TerminalArgs = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(
      MAX_COMMAND_CHARS,
      tooLong(
        'command',
        MAX_COMMAND_CHARS,
        'write long content to a file with write_file and run a command that reads it',
      ),
    )
    .describe('Shell command to run.'),
  workdir: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Directory to run in; relative paths resolve against the target's cwd. Defaults to the target's tracked cwd.",
    ),
  timeout: z
    .number()
    .int()
    .positive()
    .max(86_400)
    .optional()
    .describe('Seconds before the command is killed (foreground only).'),
  background: z.boolean().optional().describe('Start in the background and return a session_id for the process tool.'),
  outside_sandbox: z
    .boolean()
    .optional()
    .describe(
      "Run this one foreground command outside the target's OS sandbox (after it failed there). " +
        'A person must approve it, every time, once.',
    ),
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
  content: z
    .string()
    .max(
      MAX_FILE_CONTENT_CHARS,
      tooLong(
        'content',
        MAX_FILE_CONTENT_CHARS,
        'write the file in parts and join them with a command (cat part-* > file)',
      ),
    )
    .describe('The whole new content of the file.'),
  execution_target: executionTarget,
});

export const PatchArgs = z.strictObject({
  path: z.string().min(1).describe("File path; relative to the target's cwd."),
  old_string: z
    .string()
    .min(1)
    .max(
      MAX_FILE_CONTENT_CHARS,
      tooLong('old_string', MAX_FILE_CONTENT_CHARS, 'patch a smaller part, or write the file whole'),
    )
    .describe('Exact text to replace.'),
  new_string: z
    .string()
    .max(
      MAX_FILE_CONTENT_CHARS,
      tooLong('new_string', MAX_FILE_CONTENT_CHARS, 'patch a smaller part, or write the file whole'),
    )
    .describe('Replacement text.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
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
  code: z
    .string()
    .min(1)
    .describe(
      'A python3 script. `import switchboard_tools` gives terminal, read_file, write_file, patch, ' +
        'search_files, pinned to this target.',
    ),
  timeout: z
    .number()
    .int()
    .positive()
    .max(3_600)
    .optional()
    .describe('Seconds before the script is killed (default 300).'),
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
} as const satisfies Record<ToolName, z.ZodType>;

export type ToolArgs<T extends ToolName> = z.infer<(typeof toolArgSchemas)[T]>;

export const TerminalResult = ToolResultBase.extend({
  output: z.string().optional(),
  exit_code: z.number().int().optional(),
  cwd: z.string().optional(),
  session_id: z.string().optional(),
  truncated: z.boolean().optional(),
  timed_out: z.boolean().optional(),
});
export type TerminalResult = z.infer<typeof TerminalResult>;

/** process: the list, or one process's state and output; the fields depend on the action. */
export const ProcessResult = ToolResultBase.extend({
  processes: z.array(z.record(z.string(), z.unknown())).optional(),
  session_id: z.string().optional(),
  status: z.string().optional(),
  exit_code: z.number().int().nullable().optional(),
  output: z.string().optional(),
  bytes_written: z.number().int().optional(),
  timed_out: z.boolean().optional(),
});

export const ReadFileResult = ToolResultBase.extend({
  path: z.string(),
  content: z.string(),
  lines_returned: z.number().int(),
  offset: z.number().int(),
  total_lines: z.number().int().optional(),
  next_offset: z.number().int().optional(),
  truncated: z.boolean().optional(),
});

export const WriteFileResult = ToolResultBase.extend({ path: z.string(), bytes_written: z.number().int() });

export const PatchResult = ToolResultBase.extend({ path: z.string(), replacements: z.number().int() });

export const SearchFilesResult = ToolResultBase.extend({
  root: z.string(),
  count: z.number().int(),
  matches: z
    .array(
      z.object({ path: z.string(), line: z.number().int(), text: z.string(), context: z.literal(true).optional() }),
    )
    .optional(),
  files: z.array(z.string()).optional(),
  truncated: z.boolean().optional(),
  timed_out: z.boolean().optional(),
});

export const ExecuteCodeResult = ToolResultBase.extend({
  output: z.string(),
  exit_code: z.number().int(),
  tool_calls: z.number().int(),
  truncated: z.boolean().optional(),
  timed_out: z.boolean().optional(),
  error: z.string().optional(),
});

export const ListTargetsResult = ToolResultBase.extend({
  targets: z.array(z.record(z.string(), z.unknown())),
  default_target: z.string(),
});

export const toolResultSchemas = {
  terminal: TerminalResult,
  process: ProcessResult,
  read_file: ReadFileResult,
  write_file: WriteFileResult,
  patch: PatchResult,
  search_files: SearchFilesResult,
  execute_code: ExecuteCodeResult,
  list_targets: ListTargetsResult,
} as const satisfies Record<ToolName, z.ZodType>;

/** MCP's behaviour hints, declared honestly per tool. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * What a tool call asks the approval policy to judge: a shell command, a file it writes or reads, or a script.
 * A tool declares how to find it in its arguments; the policy never looks at tool names.
 */
export type ApprovalSubject =
  | {
      kind: 'command';
      command: string /** Where it runs when not the tracked cwd (terminal's workdir). */;
      workdir?: string;
      /** The call asks to run outside its target's sandbox: a person is always asked, and only once counts. */
      outside_sandbox?: boolean;
    }
  | {
      kind: 'path';
      path: string;
      access: 'read' | 'write' /** The call reads everything under the path (a search). */;
      tree?: boolean;
    }
  | { kind: 'code'; code: string; language: 'python' }
  /** Text written to a running program's stdin (process write): judged as shell where it reads as shell. */
  | {
      kind: 'input';
      data: string;
      /** The background process it is written to (its session_id): what was written before is known there. */
      process?: string;
      /** What reads it, where the approval step knows (from the process's command); as shell, leniently, when not. */
      language?: InputLanguage;
    };

/** What a running program's stdin is read as: a shell, an interpreter's REPL, a SQL client, or something else. */
export type InputLanguage = 'shell' | 'python' | 'node' | 'perl' | 'ruby' | 'sql' | 'other';
