// Pending approvals (unknown SSH host keys now, dangerous commands later) and the decisions a person makes.
import { z } from 'zod';

export const ApprovalScope = z.enum(['once', 'session', 'always']);
export type ApprovalScope = z.infer<typeof ApprovalScope>;

export const HostKeyDetails = z.object({
  host: z.string(),
  port: z.number().int(),
  key_type: z.string(),
  /** `SHA256:…` as OpenSSH prints it; never the key itself. */
  fingerprint: z.string(),
});

export const PendingApproval = z.object({
  id: z.string(),
  kind: z.enum(['host_key', 'command']),
  title: z.string(),
  execution_target: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  host_key: HostKeyDetails.optional(),
  command: z.string().optional(),
  cwd: z.string().optional(),
  reasons: z.array(z.string()).optional(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

export const ApprovalDecision = z.object({
  id: z.string().min(1),
  decision: z.enum(['approve', 'deny']),
  scope: ApprovalScope.optional(),
  reason: z.string().max(2000).optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;
