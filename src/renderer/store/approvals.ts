// Pending approvals the Core is waiting on (unknown SSH host keys now); the oldest is shown first.
import { create } from 'zustand';
import type { PendingApproval } from '../../shared/approvals.js';

interface ApprovalsState {
  pending: PendingApproval[];
  set(list: PendingApproval[]): void;
}

export const useApprovals = create<ApprovalsState>((set) => ({
  pending: [],
  set: (list) => set({ pending: [...list].sort((a, b) => a.created_at.localeCompare(b.created_at)) }),
}));
