// approvals.list / approvals.pending / approvals.decide / approvals.rules / approvals.revoke: pending approvals and
// kept rules.
import type { PendingApproval } from '../../../shared/approvals.js';
import { redact } from '../../../shared/redact.js';
import type { Handlers } from '../platform/index.js';
import type { ApprovalBroker } from './approvalBroker.js';
import type { ApprovalRules } from './approvalRules.js';
import { whoActs, type RecordAction } from '../activity/index.js';

/**
 * A pending approval as anyone may read it: its command and reasons redacted, without the highlights (they index the
 * original).
 */
function redacted(a: PendingApproval): PendingApproval {
  const { highlights: _highlights, ...rest } = a;
  return {
    ...rest,
    ...(a.command !== undefined ? { command: redact(a.command) } : {}),
    ...(a.reasons ? { reasons: a.reasons.map((r) => redact(r)) } : {}),
  };
}

export function approvalMethods(deps: { approvals: ApprovalBroker; rules: ApprovalRules; record: RecordAction }) {
  return {
    // An agent may see what waits, never a secret written into another call's command.
    'approvals.list': async () => deps.approvals.list().map(redacted),
    'approvals.pending': async () => deps.approvals.list(),
    // A person's method (shared/api.ts): Core.invoke refused it to every caller that is not one.
    'approvals.decide': async (d, ctx) => deps.approvals.decide(d, ctx.client, ctx.person),
    'approvals.rules': async () => deps.rules.list(),
    'approvals.revoke': async ({ id }, ctx) => {
      const rule = deps.rules.list().find((r) => r.id === id);
      return deps.record(
        {
          ...whoActs(ctx),
          tool: 'approvals.revoke',
          execution_target: rule?.execution_target,
          summary: rule ? `revoke ${id}: ${rule.tool} ${rule.pattern}` : `revoke ${id}`,
        },
        async () => {
          deps.rules.revoke(id);
          return { id };
        },
      );
    },
  } satisfies Partial<Handlers>;
}
