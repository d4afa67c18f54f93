// Appends one JSON line per dispatch and per approval decision to audit.jsonl; secrets are redacted first.
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface AuditRecord {
  time: string;
  kind: 'dispatch' | 'approval';
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

const secretPatterns: RegExp[] = [
  /(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----)/g,
  // Also prefixed names (API_TOKEN=, DB_PASSWORD:): `_` is a word char, so \b alone would miss them.
  /\b([A-Za-z0-9_]*(?:api[_-]?key|token|secret|password|passwd|pwd|auth)[A-Za-z0-9_]*\s*[=:]\s*)(["']?)[^\s"']+\2/gi,
  /\b(Authorization:\s*(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]+/gi,
  /\b(gh[pousr]_|sk-|xox[baprs]-|AKIA)[A-Za-z0-9_-]{8,}/g,
];

/** Replace anything that looks like a credential with [redacted]. */
export function redact(text: string): string {
  let out = text;
  out = out.replace(secretPatterns[0]!, '$1 [redacted] $2');
  out = out.replace(secretPatterns[1]!, '$1[redacted]');
  out = out.replace(secretPatterns[2]!, '$1[redacted]');
  out = out.replace(secretPatterns[3]!, '[redacted]');
  return out;
}

/** A short, secret-free summary of a tool call's arguments for the feed and the audit log. */
export function summarizeArgs(tool: string, args: Record<string, unknown>): string {
  const clip = (s: string, n = 160): string => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const str = (k: string): string => (typeof args[k] === 'string' ? (args[k] as string) : '');
  let s: string;
  switch (tool) {
    case 'terminal':
      s = (args.background ? '[bg] ' : '') + str('command');
      break;
    case 'process':
      s = `${str('action')}${args.session_id ? ' ' + str('session_id') : ''}`;
      break;
    case 'write_file':
      s = `${str('path')} (${str('content').length} chars)`;
      break;
    case 'patch':
      s = str('path');
      break;
    case 'read_file':
      s = str('path');
      break;
    case 'search_files':
      s = `${str('target')} ${str('pattern')}${args.path ? ' in ' + str('path') : ''}`;
      break;
    case 'execute_code':
      s = str('code').split('\n')[0] ?? '';
      break;
    default:
      s = '';
  }
  return clip(redact(s.replace(/\s+/g, ' ').trim()));
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
