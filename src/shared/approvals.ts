// Pending approvals (unknown SSH host keys, dangerous agent commands), the decisions a person makes and the rules they
// keep.
import * as z from 'zod';
import { PersonWay } from './personWay.js';
import { SandboxInfo } from './targets.js';
// The larger schemas are z.lazy: built on first use, so a process that never parses one (`switchboard call`) does not
// build it; z.lazy accepts exactly what the schema inside accepts.

export const ApprovalScope = z.enum(['once', 'session', 'always']);
export type ApprovalScope = z.infer<typeof ApprovalScope>;

export const HostKeyDetails = z.lazy(() =>
  z.object({
    host: z.string(),
    port: z.number().int(),
    key_type: z.string(),
    /** `SHA256:…` as OpenSSH prints it; never the key itself. */
    fingerprint: z.string(),
  }),
);

export const PendingApproval = z.lazy(() =>
  z.object({
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
    /** Command approvals: the tool call being held, and the runtime identity it is bound to. */
    tool: z.string().optional(),
    generation: z.string().optional(),
    backend: z.string().optional(),
    /** Who asked (mcp, cli, execute_code …); set by the Core from the connection, never by the caller. */
    client: z.string().optional(),
    /** What `command` holds: a shell command, a file path (write_file, patch) or code (execute_code). */
    subject: z.enum(['command', 'path', 'code']).optional(),
    /** The call would run with the person's own powers: its target is unsandboxed (the dialog says so). */
    unsandboxed: z.boolean().optional(),
    /** Where the call would run, when known (a container: what holds it in, or why nothing does; the dialog says). */
    sandbox: SandboxInfo.optional(),
    /** The agent asks to run this one call outside its target's sandbox (escalation); approvable once only. */
    outside_sandbox: z.boolean().optional(),
    /**
     * The call names /tmp on a sandboxed target: there /tmp is the sandbox's own private folder, not this machine's
     * (the dialog and the result say so).
     */
    private_tmp: z.boolean().optional(),
    /** [start, end) spans of `command` the policy flagged, for highlighting. */
    highlights: z.array(z.tuple([z.number().int(), z.number().int()])).optional(),
  }),
);
export type PendingApproval = z.infer<typeof PendingApproval>;

/**
 * A persisted "always allow" rule (approvals.json): one target name with one spec, one tool, one normalised command
 * pattern.
 */
export const ApprovalRule = z.lazy(() =>
  z.object({
    id: z.string(),
    execution_target: z.string(),
    tool: z.string(),
    pattern: z.string(),
    /**
     * Set when the command held a secret: `pattern` shows it redacted, and the rule matches by this salted hash of the
     * whole pattern (`scrypt:<salt hex>:<hash hex>`), so approvals.json never keeps the secret.
     */
    pattern_hash: z.string().max(200).optional(),
    /**
     * The fingerprint of the target's spec when the rule was made (`sha256:` and hex): the rule matches only while the
     * target has that spec. Rules made before fingerprints were kept have none and match nothing.
     */
    spec_fingerprint: z.string().optional(),
    /**
     * For display, never stored: the rule matches nothing now (no fingerprint, the target's spec changed, or it is
     * gone).
     */
    stale: z.boolean().optional(),
    created_at: z.string(),
    /** Who made it: ui or cli. */
    created_by: z.string(),
  }),
);
export type ApprovalRule = z.infer<typeof ApprovalRule>;

/** How a held call was decided, as Activity and audit.jsonl show it. */
export const ApprovalOutcome = z.lazy(() =>
  z.object({
    decision: z.enum(['approve', 'deny', 'refuse']),
    scope: ApprovalScope.optional(),
    /**
     * ui or cli (a person, and where they answered), rule (a session or always rule matched; see scope), mode
     * (approvals.mode deny/off), flags (the target's skip_container_guards), policy (hardline), binding (the target,
     * generation or arguments changed after the approval), timeout, withdrawn (the caller went away), shutdown.
     */
    by: z.string(),
    /** When a person decided: how they were known (the window, a link's page, a terminal). */
    person: PersonWay.optional(),
    reason: z.string().optional(),
    waited_ms: z.number().int().min(0).optional(),
  }),
);
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

export const ApprovalDecision = z.lazy(() =>
  z.object({
    id: z.string().min(1),
    decision: z.enum(['approve', 'deny']),
    scope: ApprovalScope.optional(),
    reason: z.string().max(2000).optional(),
  }),
);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/**
 * `approvals.mode`: ask a person, refuse without asking, or run dangerous commands unasked (hardline is refused in
 * all).
 */
export const ApprovalsMode = z.enum(['ask', 'deny', 'off']);
export type ApprovalsMode = z.infer<typeof ApprovalsMode>;

/** hardline: refused in every mode, no approval covers it; dangerous: asks; safe: runs. */
export const PolicyVerdict = z.enum(['hardline', 'dangerous', 'safe']);
export type PolicyVerdict = z.infer<typeof PolicyVerdict>;

/** What the policy does with a call once mode and target flags are applied. */
export const PolicyDecision = z.enum(['refuse', 'ask', 'allow']);
export type PolicyDecision = z.infer<typeof PolicyDecision>;

export const PolicyReason = z.lazy(() =>
  z.object({
    /** One short sentence a person reads in the dialog ("recursive delete of /home/agent (rm -rf)"). */
    text: z.string(),
    /** The rule that found it (stable id, e.g. `delete.recursive`). */
    rule: z.string(),
    severity: PolicyVerdict.exclude(['safe']),
    /** [start, end) of the flagged part in the original command, when it can be pointed at. */
    span: z.tuple([z.number().int(), z.number().int()]).optional(),
  }),
);
export type PolicyReason = z.infer<typeof PolicyReason>;

export const PolicyClassification = z.lazy(() =>
  z.object({
    verdict: PolicyVerdict,
    reasons: z.array(PolicyReason),
    decision: PolicyDecision,
  }),
);
export type PolicyClassification = z.infer<typeof PolicyClassification>;
