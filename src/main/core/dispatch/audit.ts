// Appends one JSON line per dispatch and per approval decision to audit.jsonl; secrets are redacted first.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolDef } from '../tools/toolDef.js';

export interface AuditRecord {
  time: string;
  /** sweep: processes a crashed Core run left behind, found and ended by this one. */
  kind: 'dispatch' | 'approval' | 'sweep';
  client: string;
  tool?: string;
  execution_target?: string;
  generation?: string;
  args?: string;
  outcome: string;
  duration_ms?: number;
  error?: string;
  [key: string]: unknown;
}

/** Credential shapes, applied in this order: the specific ones first, so a generic rule cannot half-match them. */
const redactions: Array<[RegExp, string]> = [
  [/(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '$1 [redacted] $2'],
  // Authorization headers and bare bearer tokens.
  [/\b(Authorization\s*[:=]\s*["']?(?:Bearer|Basic|Token|Digest)\s+)[^\s"']+/gi, '$1[redacted]'],
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g, '$1[redacted]'],
  // Credentials in URLs: scheme://user:password@host.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s@/]+@/gi, '$1[redacted]@'],
  // Flags that take a secret: --password X, --token=X, --api-key X …
  [/(--?(?:password|passwd|pass|token|secret|api[-_]?key|auth[-_]?token|access[-_]?key)(?:=|\s+))(?:"[^"]*"|'[^']*'|[^\s"']+)/gi, '$1[redacted]'],
  // NAME=value for secret-looking names, prefixed ones too (API_TOKEN=, DB_PASSWORD:).
  [/\b([A-Za-z0-9_]*(?:api[_-]?key|token|secret|password|passwd|pwd)[A-Za-z0-9_]*\s*[=:]\s*)(?!\[redacted\])(?:"[^"]*"|'[^']*'|[^\s"']+)/gi, '$1[redacted]'],
  // Well-known token formats wherever they stand.
  [/\b(gh[pousr]_|github_pat_|sk-|xox[baprs]-|AKIA|glpat-)[A-Za-z0-9_-]{8,}/g, '[redacted]'],
];

/** Replace anything that looks like a credential with [redacted]. */
export function redact(text: string): string {
  let out = text;
  for (const [pattern, replacement] of redactions) out = out.replace(pattern, replacement);
  return out;
}

/** A short, secret-free summary of a tool call's arguments for the feed and the audit log, as its tool declares it. */
export function summarizeArgs(def: Pick<ToolDef, 'summary'> | undefined, args: Record<string, unknown>): string {
  const clip = (s: string, n = 160): string => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  return clip(redact((def?.summary(args) ?? '').replace(/\s+/g, ' ').trim()));
}

export class AuditLog {
  readonly path: string;
  private chain: Promise<void> = Promise.resolve();

  constructor(home: string) {
    this.path = join(home, 'audit.jsonl');
  }

  write(record: AuditRecord): void {
    const line = JSON.stringify(record) + '\n';
    // Serialize appends so lines never interleave; a failed write is not a failed call.
    this.chain = this.chain.then(() => appendFile(this.path, line, { mode: 0o600 })).catch(() => undefined);
  }

  flush(): Promise<void> {
    return this.chain;
  }
}
