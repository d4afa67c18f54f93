// One tool declared once: what the dispatcher, the audit, the MCP server and execute_code's bootstrap read about it.
import type { z } from 'zod';
import type { TargetInfo } from '../../../shared/targets.js';
import type { ApprovalSubject, ToolAnnotations, ToolClient, ToolName, ToolResult } from '../../../shared/tools.js';
import type { Environment, TargetSnapshot } from '../backends/index.js';
import type { ProcessManager } from '../processes/index.js';
import type { OutputSpool, OutputStore } from '../outputs/index.js';
import type { Sessions } from '../sessions/index.js';

/** What handlers may use besides their target: given to the dispatcher by whoever wires the Core. */
export interface ToolServices {
  /** Background processes; without them background terminal calls and `process` are refused. */
  processes?: ProcessManager;
  /** The targets as list_targets shows them. */
  listTargets?: () => { targets: TargetInfo[]; default_target: string };
  /** Where the whole output of a call whose result was cut is kept (read_output); without it none is kept. */
  outputs?: OutputStore;
}

export interface ToolContext {
  snapshot: TargetSnapshot;
  env: Environment;
  sessions: Sessions;
  client: ToolClient;
  signal: AbortSignal | undefined;
  services: Readonly<ToolServices>;
  /** Every tool the dispatcher serves (execute_code offers them to its script). */
  tools: readonly ToolDef[];
  /**
   * A spool for this call's output, counted for its progress and kept whole (read_output) once it is longer than
   * `keepAfterChars`; undefined where outputs are not kept.
   */
  keepOutput(keepAfterChars: number): OutputSpool | undefined;
  /** Make a nested tool call pinned to this context's snapshot; `signal` (default: this call's) cancels it. */
  nested(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
}

export type ToolHandler = (ctx: ToolContext, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** How a tool appears as a function of `switchboard_tools` inside execute_code (its parameters come from `args`). */
export interface ScriptFunction {
  /** The Python docstring. */
  doc: string;
  /** Defaults other than None for optional arguments (search_files' mode). */
  defaults?: Readonly<Record<string, string | number | boolean>>;
}

export interface ToolDef<A extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>> {
  readonly name: ToolName;
  /** Short human title (MCP `title`, annotations). */
  readonly title: string;
  /** What the model reads. */
  readonly description: string;
  readonly args: A;
  readonly result: z.ZodType;
  readonly annotations: Readonly<ToolAnnotations>;
  /** A short summary of the raw arguments for Activity and audit.jsonl; redacted and clipped by the audit. */
  summary(args: Readonly<Record<string, unknown>>): string;
  /** What the approval policy classifies; undefined when the call has nothing to judge. */
  approval(args: z.infer<A>): ApprovalSubject | undefined;
  /** Runs without a target environment (execution_target, when given, only scopes it). */
  readonly targetless?: boolean;
  /**
   * A targetless tool's target when its arguments name it indirectly (process: the target of session_id), for approval.
   */
  actsOn?(args: z.infer<A>, services: Readonly<ToolServices>): string | undefined;
  /** Allowed on a draining target: it inspects or stops work already running. */
  readonly drainSafe?: boolean;
  /** Offered to execute_code scripts as `switchboard_tools.<name>`. */
  readonly script?: ScriptFunction;
  handler(ctx: ToolContext, args: z.infer<A>): Promise<Record<string, unknown>>;
}

/** Declare a tool; the generic ties the handler's and approval hook's argument types to the args schema. */
export function defineTool<A extends z.ZodType<Record<string, unknown>>>(def: ToolDef<A>): ToolDef {
  return def as unknown as ToolDef;
}

/** A string argument of raw (unparsed) arguments, or ''. */
export function argText(args: Readonly<Record<string, unknown>>, key: string): string {
  const v = args[key];
  return typeof v === 'string' ? v : '';
}

/** The first line of a text, found without splitting the rest of it into lines. */
export function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}

/** Whether a targetless call has a target (it named a known one, or it is pinned inside execute_code). */
export function hasSnapshot(ctx: ToolContext): boolean {
  try {
    return ctx.snapshot !== undefined;
  } catch {
    return false;
  }
}
