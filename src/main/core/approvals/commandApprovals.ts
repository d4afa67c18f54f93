// The approval step of every tool call: classify what the call runs or writes, then refuse, ask a person, or let
// it run; every decision is one audit line and the call's Activity entry. The dispatcher calls it before the handler.
// Judging with what the target holds is judgeOnTarget.ts, what an approval binds approvalBinding.ts, the dialog's
// text and the refusals approvalOutcome.ts.
import { homedir } from 'node:os';
import type {
  ApprovalOutcome,
  ApprovalsMode,
  PendingApproval,
  PolicyClassification,
} from '../../../shared/approvals.js';
import type { ApprovalSubject, ToolClient } from '../../../shared/tools.js';
import type { SandboxInfo } from '../../../shared/targets.js';
import type { TargetSnapshot } from '../backends/index.js';
import { specFingerprint } from '../registry/index.js';
import type { Sessions } from '../sessions/index.js';
import type { ToolDef } from '../tools/index.js';
import type { AuditLog } from '../activity/index.js';
import type { ApprovalBroker, Decided } from './approvalBroker.js';
import type { ApprovalRules, RuleKey } from './approvalRules.js';
import type { CommandPolicy } from './policy/commandPolicy.js';
import { resolvePath } from './policy/paths.js';
import { StdinJudge, type PreparedInput } from './stdinJudge.js';
import { assertBound, bindingOf, frozenCopy, type Authorization } from './approvalBinding.js';
import {
  namesTmp,
  outcomeOf,
  OUTSIDE_SANDBOX_REASON,
  patternOf,
  policyRefusal,
  PRIVATE_TMP_NOTE,
  reasonLine,
  refusalFor,
  subjectText,
  withdrawnLate,
} from './approvalOutcome.js';
import { contentNow, judgeOnTarget, withRunningFile, type Judged } from './judgeOnTarget.js';
import { RunningFiles } from './runningFiles.js';
import { hostPathsProbe, type TargetProbe } from './targetProbe.js';

// What callers and tests import from here, defined beside it.
export { ApprovalRefused, assertBound, bindingOf, type Authorization } from './approvalBinding.js';
export { namesTmp, OUTSIDE_SANDBOX_REASON, PRIVATE_TMP_NOTE } from './approvalOutcome.js';

export interface CommandApprovalsDeps {
  policy: () => Promise<CommandPolicy>;
  broker: ApprovalBroker;
  rules: ApprovalRules;
  sessions: Sessions;
  audit: AuditLog;
  settings: () => { mode: ApprovalsMode; timeoutSec: number };
  /** The target's snapshot now (after a wait), to check the approval still points at the same runtime identity. */
  current: (name: string) => TargetSnapshot | undefined;
  /** Where a target's agent work runs (as its environment found it, else as its provider's sandboxFor says). */
  sandbox?: (snapshot: TargetSnapshot) => SandboxInfo | undefined;
  /** The target's paths are this machine's (its work runs here): a read's links are followed here, with no process. */
  hostPaths?: (snapshot: TargetSnapshot) => boolean;
  /**
   * Looks on the target for what a judgement needs (links, run files, git config and hooks). Without it nothing is
   * looked up: paths are judged as written, and files a command runs are not read.
   */
  probe?: (snapshot: TargetSnapshot) => TargetProbe;
  /** The command and start directory of a background process (for what reads its stdin); undefined when unknown. */
  processInfo?: (sessionId: string) => { command: string; cwd?: string } | undefined;
}

/** One call at the approval step. */
export interface ApprovalCall {
  def: ToolDef;
  args: Readonly<Record<string, unknown>>;
  snapshot: TargetSnapshot;
  client: ToolClient;
  /** The activity summary of the arguments (already redacted). */
  summary: string;
  signal?: AbortSignal | undefined;
  /** The call is held for a person from now until the approval's expires_at (its progress says so). */
  onAsked?: (approval: PendingApproval) => void;
}

/** A command with most of the shell's forms in it, classified once the policy is loaded (see warm). */
const warmUpCommand =
  'cd /tmp && ls -la "$HOME" | grep -v x > /dev/null 2>&1; echo $(date) `id -u` <(true) || for f in a b; ' +
  'do X=1 sh -c "$f"; done & python3 -c "import os; print(os.path.join(\'a\', f\'{1}\'))"; ' +
  'node -e "require(\'fs\').existsSync(`x`)"';

export class CommandApprovals {
  private policyLoad: Promise<CommandPolicy> | undefined;
  private readonly stdin = new StdinJudge();
  private readonly running = new RunningFiles();

  constructor(private readonly deps: CommandApprovalsDeps) {}

  /** Load the policy now (it compiles the bash grammar, a few hundred ms) so the first call is not slowed by it. */
  warm(): void {
    if (this.policyLoad) return;
    (this.policyLoad = this.deps.policy()).then(
      // A grammar's code is compiled on its first parses (about 150 ms here): bash's run now, not in the first call.
      // The Python and JavaScript grammars load (and compile) with the first call that holds code in their language.
      (policy) =>
        void setImmediate(() => {
          try {
            policy.classify({ kind: 'command', command: warmUpCommand });
          } catch {
            /* a warm-up only: a real call reports its own failure */
          }
        }),
      () => {
        // Retried by the first call that needs it, which then reports the failure.
        this.policyLoad = undefined;
      },
    );
  }

  /**
   * Judge a call; resolves with what may run, or throws ApprovalRefused (hardline, mode deny, a person's deny,
   * the timeout, a withdrawn request, or an approval that no longer binds).
   */
  async authorize(call: ApprovalCall): Promise<Authorization> {
    const subject = call.def.approval(call.args);
    // Writes to one process's stdin are judged in order, each knowing what the ones before it left.
    if (subject?.kind === 'input' && subject.process !== undefined && this.deps.processInfo) {
      const id = subject.process;
      const info = this.deps.processInfo(id);
      if (info)
        return this.stdin.serial(id, () =>
          this.authorizeSubject(call, subject, this.stdin.prepare(id, info, subject.data)),
        );
    }
    return this.authorizeSubject(call, subject, undefined);
  }

  private async authorizeSubject(
    call: ApprovalCall,
    subject: ApprovalSubject | undefined,
    input: PreparedInput | undefined,
  ): Promise<Authorization> {
    const { def, snapshot } = call;
    const args = frozenCopy(call.args);
    const fingerprint = specFingerprint(snapshot.spec);
    // A read is judged only for the profile: the file holding the agent token is refused; nothing else asks.
    if (!subject) return { args, binding: bindingOf(def.name, args, snapshot.identity, fingerprint) };
    // Input that completes no line runs nothing yet: it waits in the process's state for the rest of its line.
    if (input && input.text === '') {
      input.commit(false);
      return { args, binding: bindingOf(def.name, args, snapshot.identity, fingerprint) };
    }
    const judgedSubject: ApprovalSubject = input
      ? { kind: 'input', data: input.text, language: input.language }
      : subject;
    const policy = await (this.policyLoad ??= this.deps.policy());
    const { mode } = this.deps.settings();
    const { home, cwd } = await this.whereItRuns(snapshot, subject);
    // Work that runs on this machine unsandboxed: a write to a path built as it runs could reach the profile (it asks).
    const unsandboxed =
      this.deps.hostPaths?.(snapshot) && this.deps.sandbox?.(snapshot)?.state === 'unsandboxed' ? true : undefined;
    const ctx = {
      mode,
      home,
      cwd,
      flags: { skip_container_guards: snapshot.flags.skip_container_guards },
      ...(unsandboxed ? { unsandboxed } : {}),
    };
    const probe = this.probeFor(snapshot, subject);
    const judged = await judgeOnTarget(policy, { ...judgedSubject, via: def.name }, ctx, probe, input, call.signal);
    const c =
      subject.kind === 'path' && subject.access === 'write'
        ? await withRunningFile(
            policy,
            judged,
            { path: subject.path, content: call.args.content, tool: def.name, identity: snapshot.identity },
            ctx,
            this.running,
          )
        : judged.c;
    const binding = bindingOf(def.name, args, snapshot.identity, fingerprint, judged.content);
    const auth = await this.decideJudged(call, subject, judgedSubject, c, {
      args,
      binding,
      fingerprint,
      home,
      cwd,
      mode,
      judged,
      policy,
    });
    input?.commit(judged.unfinished === true);
    // The files it runs may be read for as long as it runs: its timeout, or (in the background) a day.
    const runsFor = call.args.background === true || input ? 24 * 3600_000 : (snapshot.timeoutSec + 5) * 1000;
    this.running.remember(snapshot.identity, judged.facts, judged.needs, Date.now() + runsFor);
    return auth;
  }

  private async decideJudged(
    call: ApprovalCall,
    subject: ApprovalSubject,
    judgedSubject: ApprovalSubject,
    c: PolicyClassification,
    j: {
      args: Readonly<Record<string, unknown>>;
      binding: string;
      fingerprint: string;
      home: string;
      cwd: string;
      mode: ApprovalsMode;
      judged: Judged;
      policy: CommandPolicy;
    },
  ): Promise<Authorization> {
    const { def, snapshot } = call;
    const { args, binding, fingerprint, home, cwd, mode, policy } = j;
    // A call that asks to leave the sandbox is always put to a person (whatever the verdict, rules or mode but deny).
    const outside = subject.kind === 'command' && subject.outside_sandbox === true;
    if (c.verdict === 'safe' && !outside) return { args, binding };
    const record = (outcome: ApprovalOutcome): ApprovalOutcome => {
      this.writeAudit(call, c, outcome);
      return outcome;
    };
    const why = outside ? [OUTSIDE_SANDBOX_REASON, ...c.reasons.map((r) => r.text)].join('; ') : reasonLine(c);
    if (c.decision === 'refuse' || (outside && mode === 'deny')) {
      const hardline = c.verdict === 'hardline';
      const outcome = record({ decision: 'refuse', by: hardline ? 'policy' : 'mode', reason: why });
      throw policyRefusal(outcome, hardline, why, mode);
    }
    if (c.decision === 'allow' && !outside) {
      // Dangerous, but let through: approvals.mode off, or a target whose flags skip container guards.
      return {
        args,
        binding,
        outcome: record({ decision: 'approve', by: mode === 'off' ? 'mode' : 'flags', reason: why }),
      };
    }

    // A rule kept for a command that runs files holds for that content only: another script under the same name asks.
    const pattern =
      patternOf(policy, judgedSubject, cwd, home) +
      (j.judged.content ? ` #content:${j.judged.content.slice(0, 16)}` : '');
    const key: RuleKey = { target: snapshot.name, identity: snapshot.identity, fingerprint, tool: def.name, pattern };
    const kept = outside ? undefined : this.deps.rules.match(key);
    if (kept) return { args, binding, outcome: record({ decision: 'approve', scope: kept, by: 'rule', reason: why }) };

    const text = subjectText(judgedSubject);
    const where = this.deps.sandbox?.(snapshot);
    // A container's /tmp is its own as a matter of course: the private-/tmp note is about a sandbox's.
    const sandboxed = !outside && where?.state === 'sandboxed' && where.kind !== 'container';
    const workspace = resolvePath(snapshot.spec.cwd ?? snapshot.flags.default_cwd ?? '~', home, home);
    const privateTmp = sandboxed && (namesTmp(text, workspace) || namesTmp(cwd, workspace));
    const decided = await this.deps.broker.request(
      {
        kind: 'command',
        title: 'Approve command',
        tool: def.name,
        // Input to a running program is shown as the command it would run.
        subject: judgedSubject.kind === 'input' ? 'command' : judgedSubject.kind,
        command: text,
        execution_target: snapshot.name,
        generation: snapshot.generation,
        backend: snapshot.spec.backend,
        client: call.client,
        cwd,
        reasons: outside ? [OUTSIDE_SANDBOX_REASON, ...c.reasons.map((r) => r.text)] : c.reasons.map((r) => r.text),
        ...(outside ? { outside_sandbox: true } : {}),
        ...(where?.state === 'unsandboxed' ? { unsandboxed: true } : {}),
        ...(where ? { sandbox: where } : {}),
        ...(privateTmp ? { private_tmp: true } : {}),
        highlights:
          judgedSubject.kind === 'command' || judgedSubject.kind === 'input'
            ? c.reasons.flatMap((r) => (r.span ? [r.span] : []))
            : [],
      },
      { signal: call.signal, ...(call.onAsked ? { onPending: call.onAsked } : {}) },
    );
    // An answer that lands as the caller gives up decides nothing (no rule either): nobody waits for what it would run.
    const landed: Decided =
      decided.decision === 'approve' && call.signal?.aborted
        ? { ...withdrawnLate, waited_ms: decided.waited_ms }
        : decided;
    // Leaving the sandbox is approved once only: a session or always answer counts as once and keeps no rule.
    if (outside && landed.decision === 'approve') landed.scope = 'once';
    const outcome = record(outcomeOf(landed));
    if (landed.decision === 'deny') throw refusalFor(landed, outcome, why);
    const auth: Authorization = { args, binding, outcome, ...(privateTmp ? { note: PRIVATE_TMP_NOTE } : {}) };
    // The wait may have been long: the approval binds to what was asked about, where it was asked, and to the content
    // of the files and git settings it runs, read again now.
    const content = await contentNow(j.judged, this.deps.probe?.(snapshot), call.signal);
    assertBound(auth, def.name, args, this.deps.current(snapshot.name), snapshot, content);
    if (landed.scope === 'session') this.deps.rules.addSession(key);
    if (landed.scope === 'always') this.deps.rules.addAlways(key, landed.decider ?? 'person');
    return auth;
  }

  /**
   * What looks on the target for a judgement. A read is judged only for the agent token, which lives in the profile on
   * this machine: for a target whose work runs here its links are followed here (no process, no round trip);
   * elsewhere no read is looked at.
   */
  private probeFor(snapshot: TargetSnapshot, subject: ApprovalSubject): TargetProbe | undefined {
    const read = subject.kind === 'path' && subject.access === 'read';
    if (!read) return this.deps.probe?.(snapshot);
    return this.deps.probe && this.deps.hostPaths?.(snapshot) ? hostPathsProbe() : undefined;
  }

  /**
   * The target's home and the directory the call runs in. Finding them may connect (and ask about a host key); a
   * failure there is the call's failure, as it would be a moment later in the handler.
   */
  private async whereItRuns(
    snapshot: TargetSnapshot,
    subject: ApprovalSubject,
  ): Promise<{ home: string; cwd: string }> {
    const { sessions } = this.deps;
    const home =
      snapshot.flags.is_remote || snapshot.flags.is_container ? await sessions.environment(snapshot).home() : homedir();
    const base = await sessions.cwd(snapshot);
    return {
      home,
      cwd: subject.kind === 'command' && subject.workdir ? resolvePath(subject.workdir, base, home) : base,
    };
  }

  private writeAudit(call: ApprovalCall, c: PolicyClassification, o: ApprovalOutcome): void {
    this.deps.audit.write({
      time: new Date().toISOString(),
      kind: 'approval',
      client: call.client,
      tool: call.def.name,
      execution_target: call.snapshot.name,
      generation: call.snapshot.generation,
      args: call.summary,
      outcome: o.decision,
      verdict: c.verdict,
      by: o.by,
      ...(o.person ? { person: o.person } : {}),
      ...(o.scope ? { scope: o.scope } : {}),
      ...(o.reason ? { reason: o.reason } : {}),
      ...(o.waited_ms !== undefined ? { waited_ms: o.waited_ms } : {}),
    });
  }
}
