// approvals.list / approvals.decide: the pending approvals a person answers from the window or the CLI.
import type { Handlers } from '../handlers.js';
import type { ApprovalBroker } from './approvalBroker.js';

export function approvalMethods(deps: { approvals: ApprovalBroker }) {
  return {
    'approvals.list': async () => deps.approvals.list(),
    'approvals.decide': async (d) => deps.approvals.decide(d),
  } satisfies Partial<Handlers>;
}
