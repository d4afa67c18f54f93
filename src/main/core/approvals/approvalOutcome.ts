// How a judgement reads to a person and ends: the dialog's text, the pattern a kept rule holds, the note on a
// sandbox's private /tmp, the outcome of a person's answer and the refusal each kind of no throws.
import type { ApprovalOutcome, ApprovalsMode, PolicyClassification } from '../../../shared/approvals.js';
import type { ApprovalSubject } from '../../../shared/tools.js';
import { decidedBy, type Decided } from './approvalBroker.js';
import { ApprovalRefused } from './approvalBinding.js';
import type { CommandPolicy } from './policy/commandPolicy.js';
import { resolvePath } from './policy/paths.js';

/** The reason every request to leave the sandbox carries. */
export const OUTSIDE_SANDBOX_REASON = 'runs outside the sandbox';

/** What an approved call on /tmp in a sandbox is told (and the person is told in the dialog). */
export const PRIVATE_TMP_NOTE =
  "[sandbox: /tmp here is this target's own private /tmp, not this machine's: what the call did there stays in " +
  'the sandbox]';

/**
 * Whether a command (or path, or cwd) names the sandbox's own /tmp: a path at or under /tmp that is not inside the
 * target's workspace (a workspace under the host's /tmp is bound over the private one, so it is the host's there).
 */
export function namesTmp(text: string, workspace = ''): boolean {
  for (const m of text.matchAll(/(?:^|[\s'"=:(<>|;&`])(\/tmp(?:\/[^\s'";|&)`<>]*)?)(?=$|[\s'";|&)`<>])/g)) {
    const path = m[1]!.replace(/\/+$/, '') || '/tmp';
    if (!workspace || !(path === workspace || path.startsWith(`${workspace}/`))) return true;
  }
  return false;
}

/** The text a rule keeps for a subject: the normalised command, the resolved path, or the code as written. */
export function patternOf(
  policy: CommandPolicy,
  subject: ApprovalSubject,
  cwd: string | undefined,
  home: string,
): string {
  switch (subject.kind) {
    case 'command':
      return policy.commandPattern(subject.command);
    case 'input':
      return policy.commandPattern(subject.data);
    case 'path':
      return resolvePath(subject.path, cwd, home);
    case 'code':
      return subject.code.trim();
  }
}

/** The text a person is shown for a subject. */
export function subjectText(subject: ApprovalSubject): string {
  switch (subject.kind) {
    case 'command':
      return subject.command;
    case 'input':
      return subject.data;
    case 'path':
      return subject.path;
    case 'code':
      return subject.code;
  }
}

/** One line: the policy's reasons joined. */
export function reasonLine(c: PolicyClassification): string {
  return c.reasons.map((r) => r.text).join('; ');
}

/** The refusal of a call the policy refuses: hardline always, dangerous under approvals.mode deny (or off, unread). */
export function policyRefusal(
  outcome: ApprovalOutcome,
  hardline: boolean,
  why: string,
  mode: ApprovalsMode,
): ApprovalRefused {
  return new ApprovalRefused(
    outcome,
    hardline ? `refused: ${why} (never run, in any approvals mode)` : `refused: ${why} (approvals.mode is ${mode})`,
    hardline
      ? 'Switchboard never runs this for an agent; a person can run it in a terminal pane'
      : // Under off, only what the policy could not read is refused (policy/commandPolicy.ts decide).
        mode === 'off'
        ? 'approvals.mode: off asks nobody, and what is too long to check runs only when a person approves ' +
          'it; set it to ask to be asked, or send less'
        : 'approvals.mode: deny refuses dangerous commands without asking; set it to ask to be asked',
  );
}

/** What a late approval becomes: the caller went away as it came, so it decides nothing. */
export const withdrawnLate: Omit<Decided, 'waited_ms'> = {
  decision: 'deny',
  scope: 'once',
  by: 'withdrawn',
  reason: 'the caller went away as the approval came',
};

/** A person's (or the clock's) answer as the outcome the audit and the Activity entry show. */
export function outcomeOf(d: Decided): ApprovalOutcome {
  return {
    decision: d.decision,
    ...(d.decision === 'approve' ? { scope: d.scope } : {}),
    by: decidedBy(d),
    ...(d.person ? { person: d.person } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
    waited_ms: d.waited_ms,
  };
}

/** The refusal a denied request throws, worded for who or what said no. */
export function refusalFor(d: Decided, outcome: ApprovalOutcome, why: string): ApprovalRefused {
  switch (d.by) {
    case 'person':
      return new ApprovalRefused(
        outcome,
        `denied by a person${d.reason ? `: ${d.reason}` : ' (no reason given)'} — flagged: ${why}`,
        'do not retry the same command; ask the person or choose another way',
      );
    case 'timeout':
      return new ApprovalRefused(
        outcome,
        `denied: ${d.reason ?? 'no one answered in time'} — flagged: ${why}`,
        'a person must approve it in the Switchboard window or with `switchboard approvals approve ID`',
      );
    case 'withdrawn':
      return new ApprovalRefused(outcome, `withdrawn: ${d.reason ?? 'the caller went away'}`);
    case 'shutdown':
      return new ApprovalRefused(outcome, `denied: ${d.reason ?? 'Switchboard is shutting down'}`);
  }
}
