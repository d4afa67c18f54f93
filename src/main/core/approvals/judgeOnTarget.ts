// Judging a call with what its target holds: the policy's judgement, made again after each look on the target for
// the links, run files and git settings it needs (a few rounds), the digest of what it used, and a write to a file
// that a running command will run judged as the code it puts there.
import { createHash } from 'node:crypto';
import type { PolicyClassification } from '../../../shared/approvals.js';
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
import type { RunningFiles } from './runningFiles.js';
import type { PreparedInput } from './stdinJudge.js';
import type { TargetProbe } from './targetProbe.js';

/** How many rounds of looking a judgement may take (a script that runs a script that runs …); then it asks. */
const PROBE_ROUNDS = 3;

/** A tree the look did not answer for: taken as a directory of tracked work, so a delete of it asks. */
const unknownTree: TreeFact = { kind: 'dir', tracked: true, ignored: false };

/** A judgement and what was looked up on the target for it. */
export interface Judged {
  c: Judgement;
  facts: ProbeFacts;
  /** Every need of the last round: what the judgement depends on, to look at again after a long wait. */
  needs: ProbeNeeds;
  /** Digest of the run files and git facts used (undefined when none were): part of what is approved. */
  content?: string;
}

/**
 * Judge, looking on the target through `probe` for what the judgement needs (at most PROBE_ROUNDS looks: a script's
 * content may name more to look at). A look that fails leaves its files and git as unreadable, which asks, with the
 * reason. Without a probe the judgement is made on the call as written.
 */
export async function judgeOnTarget(
  policy: CommandPolicy,
  subject: PolicyCall,
  ctx: JudgeContext,
  probe: TargetProbe | undefined,
  input: PreparedInput | undefined,
  signal: AbortSignal | undefined,
): Promise<Judged & { unfinished?: boolean }> {
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
    facts = mergeFacts(facts, await lookOnTarget(probe, missing, signal));
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
export async function lookOnTarget(
  probe: TargetProbe,
  needs: ProbeNeeds,
  signal: AbortSignal | undefined,
): Promise<ProbeFacts> {
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

/**
 * The digest of the run files and git facts a judgement used, as they are on the target now (undefined: none used).
 */
export async function contentNow(
  judged: Judged,
  probe: TargetProbe | undefined,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  if (judged.content === undefined || !probe) return undefined;
  const now = await lookOnTarget(probe, judged.needs, signal);
  return createHash('sha256')
    .update(factsDigestText(restrictFacts(now, judged.needs)))
    .digest('hex');
}

/**
 * A write to a file that a command still running will run is judged as the code it puts there (write_file's content
 * in the file's language); a patch of one asks. Otherwise the write's own judgement stands.
 */
export async function withRunningFile(
  policy: CommandPolicy,
  judged: Judged,
  write: { path: string; content: unknown; tool: string; identity: string },
  ctx: JudgeContext,
  running: RunningFiles,
): Promise<PolicyClassification> {
  const lexical = resolvePath(write.path, ctx.cwd, ctx.home ?? '~');
  const real = judged.facts.real.get(lexical) ?? lexical;
  const language = running.languageOf(write.identity, real);
  if (!language) return judged.c;
  const { content } = write;
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
              text: `changes ${real}, which a command still running will run (${write.tool})`,
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
