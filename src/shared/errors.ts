// One error family for every boundary: a stable code, a one-line message, a hint.
import * as z from 'zod';
import { cutLongRuns } from './echoed.js';

export const errorCodes = [
  'bad_request',
  'bad_config',
  'unknown_target',
  'target_draining',
  'target_unreachable',
  'unknown_tool',
  'unknown_process',
  'unknown_output',
  'unknown_pane',
  'unknown_plugin',
  'not_permitted',
  'registry_busy',
  'registry_conflict',
  'host_key_unknown',
  'host_key_changed',
  /** The server refused every way of logging in offered: trying again alone will not help. */
  'auth_failed',
  'approval_denied',
  'cancelled',
  'too_large',
  'timeout',
  'no_core',
  'core_running',
  'unauthorized',
  'unsupported',
  'internal',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export const ErrorPayload = z.object({
  code: z.enum(errorCodes),
  message: z.string(),
  hint: z.string().optional(),
});
export type ErrorPayload = z.infer<typeof ErrorPayload>;

/** The error every layer throws; transports carry it as ErrorPayload. */
export class SwitchboardError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  constructor(code: ErrorCode, message: string, hint?: string) {
    // A name or path a caller supplied is echoed cut (echoed.ts), however the message was put together.
    super(cutLongRuns(message));
    this.name = 'SwitchboardError';
    this.code = code;
    this.hint = hint === undefined ? undefined : cutLongRuns(hint);
  }
  toPayload(): ErrorPayload {
    return this.hint === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, hint: this.hint };
  }
  static from(payload: ErrorPayload): SwitchboardError {
    return new SwitchboardError(payload.code, payload.message, payload.hint);
  }
}

/** Turn anything thrown into a payload without leaking stack traces. */
export function toErrorPayload(err: unknown): ErrorPayload {
  if (err instanceof SwitchboardError) return err.toPayload();
  if (err instanceof z.ZodError) return { code: 'bad_request', message: formatZodError(err) };
  // An argument over the kernel's per-argument limit (a command of more than 128 KiB passed to a shell).
  if ((err as { code?: unknown } | null)?.code === 'E2BIG') {
    return {
      code: 'too_large',
      message: "the command is too long to start: over the system's limit of 128 KiB for one argument",
      hint: 'write long scripts to a file (write_file) and run the file',
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message: cutLongRuns(message.split('\n')[0] ?? 'internal error') };
}

/** Deepest nesting a request may have; deeper JSON would overflow the stack of whatever walks it next. */
export const MAX_JSON_DEPTH = 64;

/** Whether a parsed JSON value nests arrays/objects deeper than `limit` (iterative: never overflows itself). */
export function nestedDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** "path.to.key: message" for the first issue, which is what a person fixes first. */
export function formatZodError(err: z.ZodError): string {
  const issue = err.issues[0];
  if (!issue) return 'invalid input';
  const where = issue.path.length ? issue.path.join('.') + ': ' : '';
  return where + issue.message;
}

/** One line for a person: message, then the hint after an em dash. */
export function errorLine(payload: ErrorPayload): string {
  return payload.hint ? `${payload.message} — ${payload.hint}` : payload.message;
}
