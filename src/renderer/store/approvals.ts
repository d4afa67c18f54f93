// Pending approvals the Core is waiting on (SSH host keys, dangerous agent commands) and the kept always-allow rules.
import { create } from 'zustand';
import type { ApprovalRule, PendingApproval } from '../../shared/approvals.js';

interface ApprovalsState {
  /** Oldest first: the dialog shows the head, so a new request never replaces the one being read. */
  pending: PendingApproval[];
  rules: ApprovalRule[];
  /** Ids answered from this window whose removal the Core has not confirmed yet (a second click does nothing). */
  answered: ReadonlySet<string>;
  set(list: PendingApproval[]): void;
  setRules(rules: ApprovalRule[]): void;
  markAnswered(id: string): void;
}

export const useApprovals = create<ApprovalsState>((set) => ({
  pending: [],
  rules: [],
  answered: new Set(),
  set: (list) =>
    set((s) => {
      const ids = new Set(list.map((a) => a.id));
      return {
        pending: [...list].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)),
        answered: new Set([...s.answered].filter((id) => ids.has(id))),
      };
    }),
  setRules: (rules) =>
    set({
      rules: [...rules].sort(
        (a, b) => a.execution_target.localeCompare(b.execution_target) || a.created_at.localeCompare(b.created_at),
      ),
    }),
  markAnswered: (id) => set((s) => ({ answered: new Set(s.answered).add(id) })),
}));

/** How many approvals wait on each target, for the sidebar. */
export function pendingByTarget(pending: readonly PendingApproval[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of pending) out[a.execution_target] = (out[a.execution_target] ?? 0) + 1;
  return out;
}
