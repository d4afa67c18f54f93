// The agent tools of docs/design.md: argument and result schemas shared by MCP, `switchboard call` and the UI.
import * as z from 'zod';
import { ToolResultBase, type ToolName } from './toolResult.js';
import { MAX_COMMAND_CHARS, MAX_FILE_CONTENT_CHARS, mib } from './limits.js';
import { ProcessInfo, ProcessStatus } from './api.js';
import { TargetInfo } from './targets.js';

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

/**
 * A text a shell or the file system is handed: a NUL byte cannot reach either (bash cuts the command short there, and
 * a path with one is refused deep inside the backend), so it is refused here, in one line.
 */
const withoutNul = (what: string) =>
  [
    (s: string) => !s.includes('\0'),
    { error: `the ${what} contains a NUL byte, which no shell or path can hold` },
  ] as const;

/** A file or directory path of a file tool. */
const pathArg = z
  .string()
  .min(1)
  .refine(...withoutNul('path'));

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
    .refine(...withoutNul('command'))
    .describe('Shell command to run.'),
  workdir: z
    .string()
    .min(1)
    .refine(...withoutNul('workdir'))
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

/** The most chars one slice of output (read_output, process log) returns. */
export const MAX_SLICE_CHARS = 4 * 1024 * 1024;
/** What a slice returns when no limit is given. */
export const DEFAULT_SLICE_CHARS = 100_000;

/** A slice of output, in the same words for read_output and process log: chars from 0, at most MAX_SLICE_CHARS. */
const sliceOffset = z
  .number()
  .int()
  .min(0, { error: 'offset counts chars from 0; it cannot be negative' })
  .describe('First char of the output to return, counted from 0 (next_offset of the previous slice).');
const sliceLimit = z
  .number()
  .int()
  .positive()
  .max(MAX_SLICE_CHARS, { error: `limit may be at most ${MAX_SLICE_CHARS} chars; read the rest from next_offset` })
  .describe(`Chars to return (default ${DEFAULT_SLICE_CHARS}, at most ${MAX_SLICE_CHARS}).`);

export const ProcessArgs = z.strictObject({
  action: z.enum(['list', 'poll', 'log', 'wait', 'kill', 'write']).describe('What to do.'),
  session_id: z.string().min(1).optional().describe('The background process (from terminal with background: true).'),
  data: z.string().optional().describe('Text to write to the process stdin (action write).'),
  lines: z
    .number()
    .int()
    .positive()
    .max(100_000)
    .optional()
    .describe('Lines of output for action log (default 200), when no offset is given.'),
  offset: sliceOffset.optional().describe('Action log: the output from this char on, as read_output pages it.'),
  limit: sliceLimit.optional(),
  timeout: z.number().positive().max(86_400).optional().describe('Seconds to wait for action wait (default 30).'),
  execution_target: executionTarget,
});

export const ReadFileArgs = z.strictObject({
  path: pathArg.describe("File path; relative to the target's cwd."),
  offset: z.number().int().positive().optional().describe('First line to read, 1-based.'),
  limit: z.number().int().positive().max(100_000).optional().describe('Number of lines to read (default 2000).'),
  execution_target: executionTarget,
});

export const WriteFileArgs = z.strictObject({
  path: pathArg.describe("File path; relative to the target's cwd. Parent directories are created."),
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
  path: pathArg.describe("File path; relative to the target's cwd."),
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
  pattern: z
    .string()
    .min(1)
    .refine(...withoutNul('pattern'))
    .describe('A regular expression (target: content) or a glob (target: files).'),
  target: z.enum(['content', 'files']).describe('Search mode: file contents or file names. Not the execution target.'),
  path: pathArg.optional().describe("Directory to search; relative to the target's cwd."),
  file_glob: z
    .string()
    .min(1)
    .refine(...withoutNul('file_glob'))
    .optional()
    .describe('Only search files whose name matches this glob (content mode).'),
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

export const ReadOutputArgs = z.strictObject({
  output_id: z
    .string()
    .regex(/^[0-9a-f]{32}$/, { error: 'output_id is the 32 hex chars a cut result gave (its output_id field)' })
    .describe('The output_id of a result whose output was cut (truncated: true).'),
  offset: sliceOffset.optional(),
  limit: sliceLimit.optional(),
  execution_target: executionTarget.describe(
    'Only find the output if it came from this target (default: any target, by its output_id alone).',
  ),
});

export const toolArgSchemas = {
  terminal: TerminalArgs,
  process: ProcessArgs,
  read_file: ReadFileArgs,
  write_file: WriteFileArgs,
  patch: PatchArgs,
  search_files: SearchFilesArgs,
  execute_code: ExecuteCodeArgs,
  list_targets: ListTargetsArgs,
  read_output: ReadOutputArgs,
} as const satisfies Record<ToolName, z.ZodType>;

export type ToolArgs<T extends ToolName> = z.infer<(typeof toolArgSchemas)[T]>;

// The result schemas say every field a tool returns: MCP publishes them as each tool's outputSchema, which admits no
// other field (a client that validates refuses a result with one), and mcpOutputSchema.test.ts holds them to that.

/** A foreground command's output, or a background process just started. */
export const TerminalResult = ToolResultBase.extend({
  output: z.string().optional().describe('What the command printed (stdout and stderr); head and tail when cut.'),
  exit_code: z.number().int().optional(),
  cwd: z.string().optional().describe("The target's cwd after the command (a background process's own cwd)."),
  truncated: z.boolean().optional().describe('The output was cut in the middle.'),
  output_id: z.string().optional().describe('The whole output of a cut result, kept for read_output.'),
  timed_out: z.boolean().optional(),
  session_id: z.string().optional().describe('A background process, for the process tool.'),
  status: ProcessStatus.optional(),
  command: z.string().optional(),
});
export type TerminalResult = z.infer<typeof TerminalResult>;

/** process: the list, or one process's state and output; the fields depend on the action. */
export const ProcessResult = ToolResultBase.extend({
  processes: z.array(ProcessInfo).optional(),
  session_id: z.string().optional(),
  command: z.string().optional(),
  cwd: z.string().optional(),
  status: ProcessStatus.optional(),
  exit_code: z.number().int().nullable().optional(),
  reason: z.string().optional().describe('Why it ended without an exit code of its own.'),
  started_at: z.string().optional(),
  ended_at: z.string().nullable().optional(),
  output_chars: z.number().int().optional(),
  output: z.string().optional(),
  bytes_written: z.number().int().optional(),
  timed_out: z.boolean().optional(),
  /** Action log: where the output shown starts, the whole log's length, where the next slice starts. */
  offset: z.number().int().optional(),
  total_chars: z.number().int().optional(),
  next_offset: z.number().int().optional(),
  has_more: z.boolean().optional(),
});

export const ReadFileResult = ToolResultBase.extend({
  path: z.string(),
  content: z.string(),
  lines_returned: z.number().int(),
  offset: z.number().int(),
  total_lines: z.number().int().optional(),
  next_offset: z.number().int().optional().describe('The offset to read the rest from, when more is left.'),
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
  output_id: z.string().optional(),
  timed_out: z.boolean().optional(),
  error: z
    .string()
    .optional()
    .describe('Why the run did not end normally: a limit, a missing python3, a lost channel.'),
});

export const ListTargetsResult = ToolResultBase.extend({
  targets: z.array(TargetInfo),
  default_target: z.string(),
});

/** A slice of a kept output; the fields are those of process log's slices. */
export const ReadOutputResult = ToolResultBase.extend({
  output_id: z.string(),
  output: z.string(),
  offset: z.number().int(),
  total_chars: z.number().int(),
  next_offset: z.number().int().optional(),
  has_more: z.boolean(),
  /** Chars past the per-call or total bound that were not kept. */
  cut_chars: z.number().int().optional(),
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
  read_output: ReadOutputResult,
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
