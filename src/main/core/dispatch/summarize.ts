// What Activity and audit.jsonl show of a tool call: its arguments and its result, short and secret-free.
import { MAX_REDACTED_CHARS, redact } from '../../../shared/redact.js';
import { maskKnownSecrets } from '../platform/index.js';
import type { ToolDef } from '../tools/index.js';

/**
 * What a tool call returned, for the Activity feed's details (never the audit log): one `key: value` line per field,
 * long text clipped to its start and end, lists counted, secrets redacted like arguments.
 */
export function summarizeResult(result: Record<string, unknown>): string {
  const clip = (s: string, n: number): string =>
    s.length > n ? `${s.slice(0, n - 200)}\n… [${s.length - n} chars cut] …\n${s.slice(-200)}` : s;
  const lines: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (key === 'execution_target' || key === 'generation' || value === undefined) continue;
    if (typeof value === 'string')
      lines.push(`${key}: ${value.includes('\n') ? `\n${clip(value, 1500)}` : clip(value, 300)}`);
    else if (Array.isArray(value))
      lines.push(
        `${key}: ${value.length} item${value.length === 1 ? '' : 's'}` +
          (value.length ? ` — first: ${clip(JSON.stringify(value[0]), 300)}` : ''),
      );
    else lines.push(`${key}: ${clip(JSON.stringify(value) ?? String(value), 300)}`);
  }
  return maskKnownSecrets(redact(lines.join('\n')));
}

/** The most of a summary kept (Activity and audit.jsonl show one line). */
const SUMMARY_CHARS = 160;

/**
 * A short, secret-free summary of a tool call's arguments for the feed and the audit log, as its tool declares it.
 * Only the start of the text is worked on: collapsing the blanks of a whole multi-MB command grew the Core's memory
 * many times the command's size (README, Speed).
 */
export function summarizeArgs(def: Pick<ToolDef, 'summary'> | undefined, args: Record<string, unknown>): string {
  const clip = (s: string, n = SUMMARY_CHARS): string => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const text = def?.summary(args) ?? '';
  const head = text.length > MAX_REDACTED_CHARS ? text.slice(0, MAX_REDACTED_CHARS) : text;
  return clip(maskKnownSecrets(redact(head.replace(/\s+/g, ' ').trim())));
}
