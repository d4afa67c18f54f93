// approvals.list / approvals.decide / approvals.rules / approvals.revoke: pending approvals and kept rules.
import type { Handlers } from '../handlers.js';
import type { ApprovalBroker } from './approvalBroker.js';
import type { ApprovalRules } from './approvalRules.js';

export function approvalMethods(deps: { approvals: ApprovalBroker; rules: ApprovalRules }) {
  return {
    'approvals.list': async () => deps.approvals.list(),
    // A person's method (shared/api.ts): Core.invoke refused it to every caller that is not one.
    'approvals.decide': async (d, ctx) => deps.approvals.decide(d, ctx.client),
    'approvals.rules': async () => deps.rules.list(),
    'approvals.revoke': async ({ id }) => {
      deps.rules.revoke(id);
      return { id };
    },
  } satisfies Partial<Handlers>;
}
