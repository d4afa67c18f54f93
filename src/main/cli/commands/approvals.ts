// `switchboard approvals list|approve|deny|check`: decide pending approvals (host keys, commands) from a shell,
// or ask the policy what it would do with a command without running it.
import type { Command } from 'commander';
import { ApprovalScope, type PendingApproval } from '../../../shared/approvals.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { withCore } from '../connect.js';
import { action, printJson, table } from '../output.js';
import { approvalsCheckCommand } from './approvalsCheck.js';

function what(a: PendingApproval): string {
  if (a.host_key) return `${a.host_key.host}:${a.host_key.port} ${a.host_key.key_type} ${a.host_key.fingerprint}`;
  return a.command ?? '';
}

export function approvalsCommand(program: Command): void {
  const approvals = program.command('approvals').description('list and decide pending approvals');
  approvals
    .command('list')
    .alias('ls')
    .option('--json', 'one JSON document')
    .action(action(async (opts: { json?: boolean }) => {
      const list = await withCore((c) => c.call('approvals.list', {}));
      if (opts.json) return printJson({ approvals: list });
      if (list.length === 0) return void process.stdout.write('no pending approvals\n');
      process.stdout.write(table(['ID', 'KIND', 'TARGET', 'WHAT', 'EXPIRES'], list.map((a) => [a.id, a.kind, a.execution_target, what(a), a.expires_at])));
    }));
  approvals
    .command('approve')
    .argument('<id>')
    .option('--scope <scope>', 'once | session | always (for a host key: always remembers it)', 'once')
    .option('--json', 'one JSON document')
    .action(action(async (id: string, opts: { scope: string; json?: boolean }) => {
      const scope = ApprovalScope.safeParse(opts.scope);
      if (!scope.success) throw new SwitchboardError('bad_request', `--scope must be once, session or always, not "${opts.scope}"`);
      const r = await withCore((c) => c.call('approvals.decide', { id, decision: 'approve', scope: scope.data }));
      if (opts.json) printJson(r);
      else process.stdout.write(`approved ${id} (${scope.data})\n`);
    }));
  approvals
    .command('deny')
    .argument('<id>')
    .option('--reason <reason>', 'told to the agent')
    .option('--json', 'one JSON document')
    .action(action(async (id: string, opts: { reason?: string; json?: boolean }) => {
      const r = await withCore((c) => c.call('approvals.decide', { id, decision: 'deny', ...(opts.reason ? { reason: opts.reason } : {}) }));
      if (opts.json) printJson(r);
      else process.stdout.write(`denied ${id}\n`);
    }));
  approvalsCheckCommand(approvals);
}
