// approvals.list / approvals.decide / approvals.rules / approvals.revoke: pending approvals and kept rules.
import { SwitchboardError } from '../../../shared/errors.js';
import type { Handlers } from '../handlers.js';
import type { ApprovalBroker } from './approvalBroker.js';
import type { ApprovalRules } from './approvalRules.js';

export function approvalMethods(deps: { approvals: ApprovalBroker; rules: ApprovalRules }) {
  return {
    'approvals.list': async () => deps.approvals.list(),
    'approvals.decide': async (d, ctx) => {
      // Denying is always allowed; approving needs a person (an agent must not approve its own request).
      const refusal = d.decision === 'approve' ? ctx.approverRefusal?.() : undefined;
      if (refusal) {
        throw new SwitchboardError(
          'not_permitted',
          `only a person may approve: ${refusal}`,
          'approve in the Switchboard window, or run `switchboard approvals approve ID` in a terminal of your own',
        );
      }
      return deps.approvals.decide(d, ctx.client);
    },
    'approvals.rules': async () => deps.rules.list(),
    'approvals.revoke': async ({ id }) => {
      deps.rules.revoke(id);
      return { id };
    },
  } satisfies Partial<Handlers>;
}
