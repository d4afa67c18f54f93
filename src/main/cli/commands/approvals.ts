// `switchboard approvals list|approve|deny|rules|revoke|check`: decide pending approvals (host keys, commands) from a
// shell, keep or drop "always allow" rules, or ask the policy what it would do with a command without running it.
import type { Command } from 'commander';
import { closeSync, openSync } from 'node:fs';
import { ApprovalScope, type PendingApproval } from '../../../shared/approvals.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { withCore } from '../connect.js';
import { action, printJson, table } from '../output.js';
import { approvalsCheckCommand } from './approvalsCheck.js';

function what(a: PendingApproval): string {
  if (a.host_key) return `${a.host_key.host}:${a.host_key.port} ${a.host_key.key_type} ${a.host_key.fingerprint}`;
  const text = (a.command ?? '').replace(/\s+/g, ' ');
  return `${a.tool ? `${a.tool}: ` : ''}${text.length > 80 ? text.slice(0, 79) + '…' : text}`;
}

/**
 * Deciding needs a person at a terminal; a process without one (a tool call, a pipe from a script) is refused here,
 * before the Core refuses it too.
 */
function assertControllingTerminal(doing: 'approving' | 'denying'): void {
  try {
    closeSync(openSync('/dev/tty', 'r'));
  } catch {
    throw new SwitchboardError(
      'not_permitted',
      `${doing} needs a person at a terminal: this process has no controlling terminal`,
      'approve in the Switchboard window, or run this in a terminal of your own',
    );
  }
}

function where(a: PendingApproval): string {
  return a.generation ? `${a.execution_target}#${a.generation}` : a.execution_target;
}

export function approvalsCommand(program: Command): void {
  const approvals = program.command('approvals').description('list and decide pending approvals');
  approvals
    .command('list')
    .alias('ls')
    .option('--json', 'one JSON document')
    .action(
      action(async (opts: { json?: boolean }) => {
        const list = await withCore((c) => c.call('approvals.list', {}));
        if (opts.json) return printJson({ approvals: list });
        if (list.length === 0) return void process.stdout.write('no pending approvals\n');
        process.stdout.write(
          table(
            ['ID', 'KIND', 'TARGET', 'WHAT', 'WHY', 'EXPIRES'],
            list.map((a) => [a.id, a.kind, where(a), what(a), (a.reasons ?? []).join('; '), a.expires_at]),
          ),
        );
      }),
    );
  approvals
    .command('approve')
    .argument('<id>')
    .option('--scope <scope>', 'once | session | always (for a host key: always remembers it)', 'once')
    .option('--json', 'one JSON document')
    .action(
      action(async (id: string, opts: { scope: string; json?: boolean }) => {
        const scope = ApprovalScope.safeParse(opts.scope);
        if (!scope.success)
          throw new SwitchboardError('bad_request', `--scope must be once, session or always, not "${opts.scope}"`);
        assertControllingTerminal('approving');
        const r = await withCore((c) => c.call('approvals.decide', { id, decision: 'approve', scope: scope.data }));
        if (opts.json) printJson(r);
        else process.stdout.write(`approved ${id} (${scope.data})\n`);
      }),
    );
  approvals
    .command('deny')
    .argument('<id>')
    .option('--reason <reason>', 'told to the agent')
    .option('--json', 'one JSON document')
    .action(
      action(async (id: string, opts: { reason?: string; json?: boolean }) => {
        assertControllingTerminal('denying');
        const r = await withCore((c) =>
          c.call('approvals.decide', { id, decision: 'deny', ...(opts.reason ? { reason: opts.reason } : {}) }),
        );
        if (opts.json) printJson(r);
        else process.stdout.write(`denied ${id}\n`);
      }),
    );
  approvals
    .command('rules')
    .description('list the kept "always allow" rules')
    .option('--json', 'one JSON document')
    .action(
      action(async (opts: { json?: boolean }) => {
        const rules = await withCore((c) => c.call('approvals.rules', {}));
        if (opts.json) return printJson({ rules });
        if (rules.length === 0) return void process.stdout.write('no approval rules\n');
        process.stdout.write(
          table(
            ['ID', 'TARGET', 'TOOL', 'PATTERN', 'BY', 'CREATED', 'STATE'],
            rules.map((r) => [
              r.id,
              r.execution_target,
              r.tool,
              r.pattern,
              r.created_by,
              r.created_at,
              r.stale ? 'stale' : 'active',
            ]),
          ),
        );
        if (rules.some((r) => r.stale))
          process.stdout.write(
            'stale: made for a spec its target no longer has (or before rules kept one); ' +
              'it matches nothing — revoke it\n',
          );
      }),
    );
  approvals
    .command('revoke')
    .description('drop an "always allow" rule')
    .argument('<id>')
    .option('--json', 'one JSON document')
    .action(
      action(async (id: string, opts: { json?: boolean }) => {
        const r = await withCore((c) => c.call('approvals.revoke', { id }));
        if (opts.json) printJson(r);
        else process.stdout.write(`revoked ${id}\n`);
      }),
    );
  approvalsCheckCommand(approvals);
}
