// `switchboard audit verify`: is audit.jsonl's hash chain whole, and if not, the first line where it breaks and how.
// Reads the files only, so it works with or without a running Core.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import { headPath, parseHead, verifyChain, type ChainReport } from '../../core/activity/index.js';
import { switchboardHome } from '../../core/platform/index.js';
import { action, printJson } from '../output.js';

function readOrNothing(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SwitchboardError('bad_request', `cannot read ${path}: ${(err as Error).message}`);
  }
}

/** The one line a person reads. */
function sentence(path: string, r: ChainReport): string {
  if (r.break) return `${path}: broken at line ${r.break.line} (${r.break.how}): ${r.break.detail}`;
  if (r.lines === 0 && !r.head) return `${path}: no audit log yet, nothing to verify`;
  const before = r.unchained ? `; the first ${r.unchained} were written before the log was chained` : '';
  const end = r.head ? '' : `; no head file (${headPath(path)}), so lines cut from the end would not show`;
  const lost = r.lost
    ? `; ${r.lost} line${r.lost === 1 ? ' was' : 's were'} lost when they could not be written (a full disk), ` +
      `as the lines after them say (audit_lost)`
    : '';
  return `${path}: the chain is whole, ${r.lines} line${r.lines === 1 ? '' : 's'}${before}${lost}${end}`;
}

export function auditCommand(program: Command): void {
  const audit = program.command('audit').description("check Switchboard's audit log");
  audit
    .command('verify')
    .description("say whether audit.jsonl's hash chain is whole and, if not, the first line where it breaks (exit 1)")
    .option('--file <path>', 'the log to check (default: audit.jsonl in the profile)')
    .option('--json', 'one JSON document')
    .action(
      action(async (opts: { file?: string; json?: boolean }) => {
        const path = opts.file ? resolve(opts.file) : join(switchboardHome(), 'audit.jsonl');
        // The head first: a running Core writes the log, then the head, so the log read after it holds every line it
        // names.
        const headBytes = readOrNothing(headPath(path));
        const bytes = readOrNothing(path);
        const head = headBytes && parseHead(headBytes.toString('utf8'));
        if (headBytes && !head)
          throw new SwitchboardError(
            'bad_request',
            `${headPath(path)} is not a head file`,
            'it is written by the Core beside audit.jsonl; a changed one is itself a sign of tampering',
          );
        if (!bytes && !head && opts.file) throw new SwitchboardError('bad_request', `no file ${path}`);
        const r = verifyChain(bytes ?? new Uint8Array(), head);
        if (opts.json) printJson({ file: path, ...r });
        else process.stdout.write(sentence(path, r) + '\n');
        if (!r.whole) process.exitCode = 1;
      }),
    );
}
