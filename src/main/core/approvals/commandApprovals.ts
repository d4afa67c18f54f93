// The approval step of every tool call: classify what the call runs or writes, then refuse, ask a person, or let
// it run; every decision is one audit line and the call's Activity entry. The dispatcher calls it before the handler.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import type {
  ApprovalOutcome,
  ApprovalsMode,
  PendingApproval,
  PolicyClassification,
} from '../../../shared/approvals.js';
import { SwitchboardError } from '../../../shared/errors.js';
import type { ApprovalSubject, ToolClient } from '../../../shared/tools.js';
import type { SandboxInfo } from '../../../shared/targets.js';
import type { TargetSnapshot } from '../backends/index.js';
import { specFingerprint } from '../registry/index.js';
import type { Sessions } from '../sessions/index.js';
import type { ToolDef } from '../tools/index.js';
import type { AuditLog } from '../activity/index.js';
import { decidedBy, type ApprovalBroker, type Decided } from './approvalBroker.js';
import type { ApprovalRules, RuleKey } from './approvalRules.js';
import {
  judgeLoaded,
  type CommandPolicy,
  type JudgeContext,
  type Judgement,
  type PolicyCall,
} from './policy/commandPolicy.js';
import { resolvePath } from './policy/paths.js';
import {
  emptyFacts,
  factsDigestText,
  mergeFacts,
  needsNothing,
  restrictFacts,
  unanswered,
  type ProbeFacts,
  type ProbeNeeds,
  type TreeFact,
} from './policy/probeFacts.js';
import { StdinJudge, type PreparedInput } from './stdinJudge.js';
import { RunningFiles } from './runningFiles.js';
import { hostPathsProbe, type TargetProbe } from './targetProbe.js';

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

/** How many rounds of looking a judgement may take (a script that runs a script that runs …); then it asks. */
const PROBE_ROUNDS = 3;

/** A tree the look did not answer for: taken as a directory of tracked work, so a delete of it asks. */
const unknownTree: TreeFact = { kind: 'dir', tracked: true, ignored: false };

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
  /** The call is held for a person from now until the approval's expires_at (its progress says so). */
  onAsked?: (approval: PendingApproval) => void;
}

/**
 * What the step decided about a call that may run: the outcome to show (none for safe calls) and the args bound to it.
 */
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

export interface Authorization {
  outcome?: ApprovalOutcome;
  /** A line the result carries after a person's approval (what the person should know of where it ran). */
  note?: string;
  /** The arguments that were judged (and approved); the dispatcher runs these and nothing else. */
  args: Readonly<Record<string, unknown>>;
  /** (tool, normalised arguments, runtime identity, spec fingerprint, content looked at) the approval is for. */
  binding: string;
}

/** A judgement and what was looked up on the target for it. */
interface Judged {
  c: Judgement;
  facts: ProbeFacts;
  /** Every need of the last round: what the judgement depends on, to look at again after a long wait. */
  needs: ProbeNeeds;
  /** Digest of the run files and git facts used (undefined when none were): part of what is approved. */
  content?: string;
}

/** An approval refusal that knows how it was decided, so the dispatcher can show it. */
export class ApprovalRefused extends SwitchboardError {
  constructor(
    readonly outcome: ApprovalOutcome,
    message: string,
    hint?: string,
  ) {
    super('approval_denied', message, hint);
  }
}

/** The binding of a call: a digest of tool, canonical arguments, runtime identity and the fingerprint of its spec. */
export function bindingOf(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  identity: string,
  fingerprint: string,
  content?: string,
): string {
  return createHash('sha256')
    .update(JSON.stringify([tool, canonical(args), identity, fingerprint, ...(content ? [content] : [])]))
    .digest('hex');
}

/** Strings longer than this stand in a binding as their digest (see canonical). */
const DIGESTED_CHARS = 4096;

function canonical(value: unknown): unknown {
  // As strict, without a second copy of a write's content of some MB in the binding's JSON.
  if (typeof value === 'string' && value.length > DIGESTED_CHARS)
    return { sha256: createHash('sha256').update(value).digest('hex') };
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/**
 * Refuse unless the call about to run is the one that was approved, where it was approved: same tool and arguments,
 * same runtime identity with the same spec, and that identity still the target's current generation, not drained since.
 */
export function assertBound(
  auth: Authorization,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  now: TargetSnapshot | undefined,
  approved: TargetSnapshot,
  content?: string,
): void {
  if (!now || now.identity !== approved.identity) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'target changed' },
      `refused: the approval was for ${approved.identity}, but target "${approved.name}" is ` +
        `now ${now ? now.identity : 'gone'}`,
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
  if (content !== undefined && bindingOf(tool, args, now.identity, fingerprint, content) !== auth.binding) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'content changed' },
      'refused: a file or git setting the command runs changed after the approval',
      'what runs is exactly what was approved; make the call again to have the new content judged',
    );
  }
  if (content === undefined && bindingOf(tool, args, now.identity, fingerprint) !== auth.binding) {
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
      !!this.deps.hostPaths?.(snapshot) && this.deps.sandbox?.(snapshot)?.state === 'unsandboxed' ? true : undefined;
    const ctx = {
      mode,
      home,
      cwd,
      flags: { skip_container_guards: snapshot.flags.skip_container_guards },
      ...(unsandboxed ? { unsandboxed } : {}),
    };
    const judged = await this.judge(policy, { ...judgedSubject, via: def.name }, ctx, snapshot, input, call.signal);
    const c =
      subject.kind === 'path' && subject.access === 'write'
        ? await this.withRunningFile(policy, judged, subject.path, call, ctx)
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

  /**
   * A write to a file that a command still running will run is judged as the code it puts there (write_file's content
   * in the file's language); a patch of one asks. Otherwise the write's own judgement stands.
   */
  private async withRunningFile(
    policy: CommandPolicy,
    judged: Judged,
    path: string,
    call: ApprovalCall,
    ctx: JudgeContext,
  ): Promise<PolicyClassification> {
    const lexical = resolvePath(path, ctx.cwd, ctx.home ?? '~');
    const real = judged.facts.real.get(lexical) ?? lexical;
    const language = this.running.languageOf(call.snapshot.identity, real);
    if (!language) return judged.c;
    const content = call.args.content;
    const extra: PolicyClassification =
      typeof content === 'string'
        ? await judgeLoaded(policy, () =>
            policy.judge({ kind: 'input', data: content, language }, { ...ctx, facts: judged.facts }),
          )
        : {
            verdict: 'dangerous',
            decision:
              ctx.mode === 'off' || ctx.flags?.skip_container_guards ? 'allow' : ctx.mode === 'deny' ? 'refuse' : 'ask',
            reasons: [
              {
                text: `changes ${real}, which a command still running will run (${call.def.name})`,
                rule: 'run.rewritten',
                severity: 'dangerous',
              },
            ],
          };
    if (extra.verdict === 'safe') return judged.c;
    const reasons = [
      ...judged.c.reasons,
      ...extra.reasons.map((r) => ({
        ...r,
        text: `${r.text} — written to ${real}, which a command still running will run`,
      })),
    ];
    const rank = { safe: 0, dangerous: 1, hardline: 2 } as const;
    return rank[extra.verdict] >= rank[judged.c.verdict] ? { ...extra, reasons } : { ...judged.c, reasons };
  }

  /**
   * Judge, looking on the target for what the judgement needs (at most PROBE_ROUNDS looks: a script's content may name
   * more to look at). A look that fails leaves its files and git as unreadable, which asks, with the reason.
   */
  private async judge(
    policy: CommandPolicy,
    subject: PolicyCall,
    ctx: JudgeContext,
    snapshot: TargetSnapshot,
    input: PreparedInput | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Judged & { unfinished?: boolean }> {
    // A read is judged only for the agent token, which lives in the profile on this machine: for a target whose work
    // runs here its links are followed here (no process, no round trip); elsewhere no read is looked at.
    const read = subject.kind === 'path' && subject.access === 'read';
    const probe = !read
      ? this.deps.probe?.(snapshot)
      : this.deps.probe && this.deps.hostPaths?.(snapshot)
        ? hostPathsProbe()
        : undefined;
    let facts = probe ? emptyFacts() : undefined;
    // A shell's state moves with what it runs: every round judges from the state before this write, and leaves the
    // state after it in `input.session` (kept only if the write is let through).
    const start = input?.session ? { vars: new Map(input.session.vars), cwd: input.session.cwd } : undefined;
    const run = (): Judgement => {
      const session = start
        ? { vars: new Map(start.vars), ...(start.cwd !== undefined ? { cwd: start.cwd } : {}) }
        : undefined;
      const j = policy.judge(subject, { ...ctx, ...(facts ? { facts } : {}), ...(session ? { session } : {}) });
      if (session && input?.session) {
        input.session.vars = session.vars;
        if (session.cwd !== undefined) input.session.cwd = session.cwd;
      }
      return j;
    };
    // Code in a language whose grammar is not loaded yet is judged again once it is (judgeLoaded).
    let c = await judgeLoaded(policy, run);
    for (let round = 0; probe && facts && round < PROBE_ROUNDS; round++) {
      const missing = unanswered(c.needs, facts);
      if (needsNothing(missing)) break;
      facts = mergeFacts(facts, await this.look(probe, missing, signal));
      c = await judgeLoaded(policy, run);
    }
    const used = facts && (c.needs.files.size > 0 || c.needs.git.size > 0 || !!c.needs.trees?.size) ? facts : undefined;
    return {
      c,
      facts: facts ?? emptyFacts(),
      needs: c.needs,
      ...(used
        ? {
            content: createHash('sha256')
              .update(factsDigestText(restrictFacts(used, c.needs)))
              .digest('hex'),
          }
        : {}),
      ...(input?.language === 'shell' ? { unfinished: c.unfinished === true } : {}),
    };
  }

  /** One look on the target; a failure answers every file and git directory asked with the reason (which asks). */
  private async look(probe: TargetProbe, needs: ProbeNeeds, signal: AbortSignal | undefined): Promise<ProbeFacts> {
    try {
      const found = await probe.lookup(needs, signal);
      // Whatever the look could not answer (a path it could not resolve) stays as written, and is not asked again.
      return mergeFacts(found, {
        real: new Map([...needs.paths].map((p) => [p, p])),
        files: new Map(
          [...needs.files].map((p) => [
            p,
            { kind: 'unreadable', problem: 'the look on the target did not answer' } as const,
          ]),
        ),
        git: new Map(
          [...needs.git].map((p) => [
            p,
            { kind: 'unreadable', problem: 'the look on the target did not answer' } as const,
          ]),
        ),
        // Unanswered, a tree is taken as work (a directory git tracks files in): the delete asks.
        trees: new Map([...(needs.trees ?? [])].map((p) => [p, unknownTree])),
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      const problem = err instanceof Error ? err.message.split('\n')[0]! : String(err);
      return {
        real: new Map([...needs.paths].map((p) => [p, p])),
        files: new Map([...needs.files].map((p) => [p, { kind: 'unreadable', problem }])),
        git: new Map([...needs.git].map((p) => [p, { kind: 'unreadable', problem }])),
        trees: new Map([...(needs.trees ?? [])].map((p) => [p, unknownTree])),
      };
    }
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
      throw new ApprovalRefused(
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
    const content = await this.contentNow(j.judged, snapshot, call.signal);
    assertBound(auth, def.name, args, this.deps.current(snapshot.name), snapshot, content);
    if (landed.scope === 'session') this.deps.rules.addSession(key);
    if (landed.scope === 'always') this.deps.rules.addAlways(key, landed.decider ?? 'person');
    return auth;
  }

  /**
   * The digest of the run files and git facts a judgement used, as they are on the target now (undefined: none used).
   */
  private async contentNow(
    judged: Judged,
    snapshot: TargetSnapshot,
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    const probe = this.deps.probe?.(snapshot);
    if (judged.content === undefined || !probe) return undefined;
    const now = await this.look(probe, judged.needs, signal);
    return createHash('sha256')
      .update(factsDigestText(restrictFacts(now, judged.needs)))
      .digest('hex');
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

const withdrawnLate: Omit<Decided, 'waited_ms'> = {
  decision: 'deny',
  scope: 'once',
  by: 'withdrawn',
  reason: 'the caller went away as the approval came',
};

function outcomeOf(d: Decided): ApprovalOutcome {
  return {
    decision: d.decision,
    ...(d.decision === 'approve' ? { scope: d.scope } : {}),
    by: decidedBy(d),
    ...(d.person ? { person: d.person } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
    waited_ms: d.waited_ms,
  };
}

function refusalFor(d: Decided, outcome: ApprovalOutcome, why: string): ApprovalRefused {
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

/**
 * A frozen copy of JSON arguments. Strings cannot change, so they are shared, not copied: a write's content of some MB
 * is not held twice (structuredClone copied it).
 */
function frozenCopy<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T;
  if (value && typeof value === 'object')
    return Object.freeze(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, frozenCopy(v)]))) as T;
  return value;
}
