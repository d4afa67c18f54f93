// approvals.list / approvals.decide / approvals.rules / approvals.revoke: pending approvals and kept rules.
import { SwitchboardError } from '../../../shared/errors.js';
import type { Handlers } from '../handlers.js';
import type { ApprovalBroker } from './approvalBroker.js';

export function approvalMethods(deps: { approvals: ApprovalBroker }) {
  return {
    'approvals.list': async () => deps.approvals.list(),
    'approvals.decide': async (d) => deps.approvals.decide(d),
    // No rule store yet: nothing is kept, so there is nothing to list or revoke.
    'approvals.rules': async () => [],
    'approvals.revoke': async ({ id }) => {
      throw new SwitchboardError('bad_request', `no approval rule ${id}`, 'list them with `switchboard approvals rules`');
    },
  } satisfies Partial<Handlers>;
}
