// One target's health check: its backend's probe on an environment that never prompts, with a deadline, and
// whether the spec's cwd exists there (doctor); and the Core's periodic look, which creates nothing (healthProbe).
import { posix } from 'node:path';
import { toErrorPayload } from '../../../shared/errors.js';
import type { BackendProvider, Environment, ProviderContext, TargetSnapshot } from '../backends/index.js';
import { startCwd } from '../sessions/index.js';

export interface ProbeOutcome {
  ok: boolean;
  detail?: string;
  problem?: string;
  /** The spec's cwd does not exist: where commands and panes start instead. */
  cwdProblem?: string;
  ms: number;
}

export interface ProbeOptions {
  timeoutMs: number;
  /**
   * Also check that the spec's cwd exists. Not done on containers: looking inside one that was never used
   * would create it, and a probe must not have side effects.
   */
  checkCwd?: boolean;
}

export async function probeTarget(
  snapshot: TargetSnapshot,
  provider: BackendProvider | undefined,
  ctx: ProviderContext,
  opts: ProbeOptions,
): Promise<ProbeOutcome> {
  const started = Date.now();
  if (!provider) return { ok: false, problem: `backend "${snapshot.spec.backend}" is not available`, ms: 0 };
  let env: Environment | undefined;
  try {
    // A separate environment whose context cannot prompt: a probe reports an unknown host key, it never asks.
    env = provider.createEnvironment(snapshot, { ...ctx, confirmHostKey: undefined });
    const live = env;
    const outcome = await withDeadline(opts.timeoutMs, async (): Promise<Omit<ProbeOutcome, 'ms'>> => {
      const probe = await live.probe();
      if (!probe.ok) return { ok: false, problem: probe.problem };
      // A cwd that cannot be looked at (an untrusted host key) is not a reason to call the target unreachable.
      const cwdProblem =
        opts.checkCwd && !snapshot.flags.is_container
          ? await missingCwd(live, snapshot).catch(() => undefined)
          : undefined;
      return { ok: true, ...(probe.detail ? { detail: probe.detail } : {}), ...(cwdProblem ? { cwdProblem } : {}) };
    });
    return { ...outcome, ms: Date.now() - started };
  } catch (err) {
    return { ok: false, problem: toErrorPayload(err).message, ms: Date.now() - started };
  } finally {
    void env
      ?.cleanup('idle')
      .catch((err: unknown) => ctx.log?.for('targets').warn(`probe of ${snapshot.name}: cleanup failed`, err));
  }
}

/**
 * The periodic health checks' look at a target: what its backend declares as costing nothing (IdleProbe), with a
 * deadline; undefined when it declares no such look (the target is "not checked yet" until a call says how it is).
 */
export async function healthProbe(
  snapshot: TargetSnapshot,
  provider: BackendProvider | undefined,
  ctx: ProviderContext,
  opts: ProbeOptions,
): Promise<ProbeOutcome | undefined> {
  if (!provider) return { ok: false, problem: `backend "${snapshot.spec.backend}" is not available`, ms: 0 };
  const down = provider.unavailable?.();
  if (down) return { ok: false, problem: down, ms: 0 };
  const look = provider.idleProbe;
  if (look === undefined) return undefined;
  if (look === 'environment') return probeTarget(snapshot, provider, ctx, opts);
  const started = Date.now();
  try {
    // Never prompts: a look reports, a person is asked only by a connection someone wanted.
    const r = await withDeadline(opts.timeoutMs, () => look(snapshot, { ...ctx, confirmHostKey: undefined }));
    const ms = Date.now() - started;
    if (!r.ok) return { ok: false, problem: r.problem, ms };
    return {
      ok: true,
      ...(r.detail ? { detail: r.detail } : {}),
      ...(r.cwdProblem ? { cwdProblem: r.cwdProblem } : {}),
      ms,
    };
  } catch (err) {
    return { ok: false, problem: toErrorPayload(err).message, ms: Date.now() - started };
  }
}

function withDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000}s`)), ms);
  });
  return Promise.race([work(), late]).finally(() => clearTimeout(timer));
}

/** When the spec names a cwd that is not a directory there: one line saying where work starts instead. */
async function missingCwd(env: Environment, snapshot: TargetSnapshot): Promise<string | undefined> {
  const spec = snapshot.spec.cwd;
  if (typeof spec !== 'string' || spec === '' || spec === '~') return undefined;
  const cwd = await startCwd(snapshot, env);
  if ((await env.stat(cwd)).type === 'directory') return undefined;
  let parent = cwd;
  do {
    parent = posix.dirname(parent);
  } while (parent !== '/' && (await env.stat(parent)).type !== 'directory');
  return `cwd ${cwd} does not exist on ${snapshot.name}; commands and panes start in ${parent}`;
}
