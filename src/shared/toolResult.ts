// A tool call as a client of the Core sees it: the tools' names, who made the call, and the shape every result has.
// The tools' own argument and result schemas are in tools.ts; a client (`switchboard call`) needs none of them.
import * as z from 'zod';

const names = [
  'terminal',
  'process',
  'read_file',
  'write_file',
  'patch',
  'search_files',
  'execute_code',
  'list_targets',
  'read_output',
] as const;
export type ToolName = (typeof names)[number];
/**
 * The built-in tools; tools.ts declares each one's schemas under exactly these names (its table fails to compile
 * otherwise).
 */
export const toolNames: ToolName[] = [...names];

/** Every tool result says where it ran. */
/**
 * Where the call ran; a targetless call (list_targets, process list across targets) omits them rather than inventing
 * them.
 */
export const ToolResultBase = z.object({ execution_target: z.string().optional(), generation: z.string().optional() });

/** A tool result: the base plus tool-specific fields. */
export const ToolResult = ToolResultBase.catchall(z.unknown());
export type ToolResult = z.infer<typeof ToolResult>;

/** Who made a tool call: shown in the Activity feed and the audit log. */
export const ToolClient = z.enum(['mcp', 'cli', 'ui', 'execute_code', 'test']);
export type ToolClient = z.infer<typeof ToolClient>;
