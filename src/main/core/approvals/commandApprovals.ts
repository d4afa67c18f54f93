// The approval step of every tool call: classify what the call runs or writes, then refuse, ask a person, or let
// it run; every decision is one audit line and the call's Activity entry. The dispatcher calls it before the handler.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { ApprovalOutcome, ApprovalsMode, PolicyClassification } from '../../../shared/approvals.js';
import { SwitchboardError } from '../../../shared/errors.js';
import type { ApprovalSubject, ToolClient } from '../../../shared/tools.js';
import type { SandboxInfo } from '../../../shared/targets.js';
import type { TargetSnapshot } from '../backends/provider.js';
import { specFingerprint } from '../registry/specFingerprint.js';
import type { Sessions } from '../sessions/sessions.js';
import type { ToolDef } from '../tools/toolDef.js';
import type { AuditLog } from '../dispatch/audit.js';
import type { ApprovalBroker, Decided } from './approvalBroker.js';
import type { ApprovalRules, RuleKey } from './approvalRules.js';
import type { CommandPolicy } from './policy/commandPolicy.js';
import { resolvePath } from './policy/paths.js';

export interface CommandApprovalsDeps {
  policy: () => Promise<CommandPolicy>;
  broker: ApprovalBroker;
  rules: ApprovalRules;
  sessions: Sessions;
  audit: AuditLog;
  settings: () => { mode: ApprovalsMode; timeoutSec: number };
  /** The target's snapshot now (after a wait), to check the approval still points at the same runtime identity. */
  current: (name: string) => TargetSnapshot | undefined;
  /** Where a target's agent work runs (its provider's sandboxFor); undefined for work that runs elsewhere. */
  sandbox?: (snapshot: TargetSnapshot) => SandboxInfo | undefined;
}

/** The reason every request to leave the sandbox carries. */
export const OUTSIDE_SANDBOX_REASON = 'runs outside the sandbox';

/** One call at the approval step. */
export interface ApprovalCall {
  def: ToolDef;
  args: Readonly<Record<string, unknown>>;
  snapshot: TargetSnapshot;
  client: ToolClient;
  /** The activity summary of the arguments (already redacted). */
  summary: string;
  signal?: AbortSignal | undefined;
}

/** What the step decided about a call that may run: the outcome to show (none for safe calls) and the args bound to it. */
export interface Authorization {
  outcome?: ApprovalOutcome;
  /** The arguments that were judged (and approved); the dispatcher runs these and nothing else. */
  args: Readonly<Record<string, unknown>>;
  /** (tool, normalised arguments, runtime identity, spec fingerprint) the approval is for. */
  binding: string;
}

/** An approval refusal that knows how it was decided, so the dispatcher can show it. */
export class ApprovalRefused extends SwitchboardError {
  constructor(readonly outcome: ApprovalOutcome, message: string, hint?: string) {
    super('approval_denied', message, hint);
  }
}

/** The binding of a call: a digest of tool, canonical arguments, runtime identity and the fingerprint of its spec. */
export function bindingOf(tool: string, args: Readonly<Record<string, unknown>>, identity: string, fingerprint: string): string {
  return createHash('sha256').update(JSON.stringify([tool, canonical(args), identity, fingerprint])).digest('hex');
}

/** Strings longer than this stand in a binding as their digest (see canonical). */
const DIGESTED_CHARS = 4096;

function canonical(value: unknown): unknown {
  // As strict, without a second copy of a write's content of some MB in the binding's JSON.
  if (typeof value === 'string' && value.length > DIGESTED_CHARS) return { sha256: createHash('sha256').update(value).digest('hex') };
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/**
 * Refuse unless the call about to run is the one that was approved, where it was approved: same tool and arguments,
 * same runtime identity with the same spec, and that identity still the target's current generation, not drained since.
 */
export function assertBound(auth: Authorization, tool: string, args: Readonly<Record<string, unknown>>, now: TargetSnapshot | undefined, approved: TargetSnapshot): void {
  if (!now || now.identity !== approved.identity) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'target changed' },
      `refused: the approval was for ${approved.identity}, but target "${approved.name}" is now ${now ? now.identity : 'gone'}`,
      'approvals do not carry to another target or generation; make the call again',
    );
  }
  const fingerprint = specFingerprint(now.spec);
  if (fingerprint !== specFingerprint(approved.spec)) {
    // The registry refuses a generation with another spec; a file edited by hand is caught here.
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'target spec changed' },
      `refused: the approval was for ${approved.identity} as its spec was then, and the spec has changed since`,
      'approvals do not carry to another spec; make the call again',
    );
  }
  if (now.state !== approved.state) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'target draining' },
      `refused: target "${approved.name}" began draining after the approval`,
      'register a new generation or pick another target, then make the call again',
    );
  }
  if (bindingOf(tool, args, now.identity, fingerprint) !== auth.binding) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'arguments changed' },
      'refused: the arguments changed after the approval',
      'what runs is exactly what was approved; make the call again',
    );
  }
}

/** The text a rule keeps for a subject: the normalised command, the resolved path, or the code as written. */
function patternOf(policy: CommandPolicy, subject: ApprovalSubject, cwd: string | undefined, home: string): string {
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

function subjectText(subject: ApprovalSubject): string {
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
function reasonLine(c: PolicyClassification): string {
  return c.reasons.map((r) => r.text).join('; ');
}

/** A command with most of the shell's forms in it, classified once the policy is loaded (see warm). */
const warmUpCommand = 'cd /tmp && ls -la "$HOME" | grep -v x > /dev/null 2>&1; echo $(date) `id -u` <(true) || for f in a b; do X=1 sh -c "$f"; done &';

export class CommandApprovals {
  private policyLoad: Promise<CommandPolicy> | undefined;

  constructor(private readonly deps: CommandApprovalsDeps) {}

  /** Load the policy now (it compiles the bash grammar, a few hundred ms) so the first call is not slowed by it. */
  warm(): void {
    if (this.policyLoad) return;
    (this.policyLoad = this.deps.policy()).then(
      // The grammar's code is compiled on its first parses (about 150 ms here): run them now, not in the first call.
      (policy) => void setImmediate(() => {
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
    const { def, snapshot } = call;
    const args = frozenCopy(call.args);
    const fingerprint = specFingerprint(snapshot.spec);
    const binding = bindingOf(def.name, args, snapshot.identity, fingerprint);
    const subject = def.approval(args);
    // A read is judged only for the profile: the file holding the agent token is refused; nothing else asks.
    if (!subject) return { args, binding };
    const policy = await (this.policyLoad ??= this.deps.policy());
    const { mode } = this.deps.settings();
    const { home, cwd } = await this.whereItRuns(snapshot, subject);
    const ctx = { mode, home, cwd, flags: { skip_container_guards: snapshot.flags.skip_container_guards } };
    let c = policy.classify({ ...subject, via: def.name }, ctx);
    // On this machine a path may reach the profile through a symlink the text does not show: judge where it leads too.
    if (subject.kind === 'path' && c.verdict !== 'hardline' && !snapshot.flags.is_remote && !snapshot.flags.is_container) {
      const lexical = resolvePath(subject.path, cwd, home);
      const real = realPathOf(lexical);
      if (real !== lexical) {
        const there = policy.classify({ ...subject, path: real, via: def.name }, ctx);
        if (there.verdict === 'hardline') c = there;
      }
    }
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
      throw new ApprovalRefused(
        outcome,
        hardline ? `refused: ${why} (never run, in any approvals mode)` : `refused: ${why} (approvals.mode is ${mode})`,
        hardline ? 'Switchboard never runs this for an agent; a person can run it in a terminal pane'
          // Under off, only what the policy could not read is refused (policy/commandPolicy.ts decide).
          : mode === 'off' ? 'approvals.mode: off asks nobody, and what is too long to check runs only when a person approves it; set it to ask to be asked, or send less'
          : 'approvals.mode: deny refuses dangerous commands without asking; set it to ask to be asked',
      );
    }
    if (c.decision === 'allow' && !outside) {
      // Dangerous, but let through: approvals.mode off, or a target whose flags skip container guards.
      return { args, binding, outcome: record({ decision: 'approve', by: mode === 'off' ? 'mode' : 'flags', reason: why }) };
    }

    const key: RuleKey = { target: snapshot.name, identity: snapshot.identity, fingerprint, tool: def.name, pattern: patternOf(policy, subject, cwd, home) };
    const kept = outside ? undefined : this.deps.rules.match(key);
    if (kept) return { args, binding, outcome: record({ decision: 'approve', scope: kept, by: 'rule', reason: why }) };

    const text = subjectText(subject);
    const decided = await this.deps.broker.request({
      kind: 'command',
      title: 'Approve command',
      tool: def.name,
      // Input to a running program is shown as the command it would run.
      subject: subject.kind === 'input' ? 'command' : subject.kind,
      command: text,
      execution_target: snapshot.name,
      generation: snapshot.generation,
      backend: snapshot.spec.backend,
      client: call.client,
      cwd,
      reasons: outside ? [OUTSIDE_SANDBOX_REASON, ...c.reasons.map((r) => r.text)] : c.reasons.map((r) => r.text),
      ...(outside ? { outside_sandbox: true } : {}),
      ...(this.deps.sandbox?.(snapshot)?.state === 'unsandboxed' ? { unsandboxed: true } : {}),
      highlights: subject.kind === 'command' || subject.kind === 'input' ? c.reasons.flatMap((r) => (r.span ? [r.span] : [])) : [],
    }, { signal: call.signal });
    // An answer that lands as the caller gives up decides nothing (no rule either): nobody waits for what it would run.
    const landed: Decided = decided.decision === 'approve' && call.signal?.aborted ? { ...withdrawnLate, waited_ms: decided.waited_ms } : decided;
    // Leaving the sandbox is approved once only: a session or always answer counts as once and keeps no rule.
    if (outside && landed.decision === 'approve') landed.scope = 'once';
    const outcome = record(outcomeOf(landed));
    if (landed.decision === 'deny') throw refusalFor(landed, outcome, why);
    const auth: Authorization = { args, binding, outcome };
    // The wait may have been long: the approval binds to what was asked about, where it was asked.
    assertBound(auth, def.name, args, this.deps.current(snapshot.name), snapshot);
    if (landed.scope === 'session') this.deps.rules.addSession(key);
    if (landed.scope === 'always') this.deps.rules.addAlways(key, landed.decider ?? 'person');
    return auth;
  }

  /**
   * The target's home and the directory the call runs in. Finding them may connect (and ask about a host key); a
   * failure there is the call's failure, as it would be a moment later in the handler.
   */
  private async whereItRuns(snapshot: TargetSnapshot, subject: ApprovalSubject): Promise<{ home: string; cwd: string }> {
    const { sessions } = this.deps;
    const home = snapshot.flags.is_remote || snapshot.flags.is_container ? await sessions.environment(snapshot).home() : homedir();
    const base = await sessions.cwd(snapshot);
    return { home, cwd: subject.kind === 'command' && subject.workdir ? resolvePath(subject.workdir, base, home) : base };
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
      ...(o.scope ? { scope: o.scope } : {}),
      ...(o.reason ? { reason: o.reason } : {}),
      ...(o.waited_ms !== undefined ? { waited_ms: o.waited_ms } : {}),
    });
  }
}

const withdrawnLate: Omit<Decided, 'waited_ms'> = { decision: 'deny', scope: 'once', by: 'withdrawn', reason: 'the caller went away as the approval came' };

/** Where a local path leads once symlinks are followed: its nearest existing ancestor's real path, then the rest. */
function realPathOf(path: string): string {
  const rest: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    try {
      return join(realpathSync(p), ...rest.reverse());
    } catch {
      if (p === dirname(p)) return path;
      rest.push(basename(p));
    }
  }
}

function outcomeOf(d: Decided): ApprovalOutcome {
  return {
    decision: d.decision,
    ...(d.decision === 'approve' ? { scope: d.scope } : {}),
    by: d.by === 'person' ? d.decider ?? 'person' : d.by,
    ...(d.reason ? { reason: d.reason } : {}),
    waited_ms: d.waited_ms,
  };
}

function refusalFor(d: Decided, outcome: ApprovalOutcome, why: string): ApprovalRefused {
  switch (d.by) {
    case 'person':
      return new ApprovalRefused(outcome, `denied by a person${d.reason ? `: ${d.reason}` : ' (no reason given)'} — flagged: ${why}`, 'do not retry the same command; ask the person or choose another way');
    case 'timeout':
      return new ApprovalRefused(outcome, `denied: ${d.reason ?? 'no one answered in time'} — flagged: ${why}`, 'a person must approve it in the Switchboard window or with `switchboard approvals approve ID`');
    case 'withdrawn':
      return new ApprovalRefused(outcome, `withdrawn: ${d.reason ?? 'the caller went away'}`);
    case 'shutdown':
      return new ApprovalRefused(outcome, `denied: ${d.reason ?? 'Switchboard is shutting down'}`);
  }
}

/**
 * A frozen copy of JSON arguments. Strings cannot change, so they are shared, not copied: a write's content of some MB
 * is not held twice (structuredClone copied it).
 */
function frozenCopy<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T;
  if (value && typeof value === 'object') return Object.freeze(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, frozenCopy(v)]))) as T;
  return value;
}
