// The Core's view of each target's health: looked at when it appears, again every so often, sooner (with backoff)
// while it fails, and whenever a call on it fails; doctor's results count as probes too. Calls count at once both
// ways: one that got through shows the target reachable, one that could not connect shows it unreachable, and a
// target a call reached within the interval is not looked at (its calls say how it is). The looks are the backends'
// cheapest (healthProbe: nothing is created), at most `concurrency` at once, and a fleet that appeared together is
// spread over the interval after its first look. A backend with no such look leaves its targets `unchecked`.
import { runtimeIdentity, type TargetHealthInfo } from '../../../shared/targets.js';
import { backoffMs } from '../platform/index.js';
import type { ProbeOutcome } from './probeTarget.js';
import type { TargetTable } from './targetTable.js';

export interface HealthTiming {
  /** A reachable target is checked again after this long. */
  reachableMs: number;
  /** The first retry of a failing target; each further failure doubles it, up to `retryMaxMs`. */
  retryMinMs: number;
  retryMaxMs: number;
  /** How many looks run at once; the rest wait their turn. */
  concurrency: number;
}

export const defaultHealthTiming: HealthTiming = {
  reachableMs: 60_000,
  retryMinMs: 5_000,
  retryMaxMs: 300_000,
  concurrency: 8,
};

/** One active target the health checks follow. */
export interface WatchedTarget {
  name: string;
  identity: string;
}

/** The targets the health checks follow: the active ones (draining, removed and unreachable backends' are not). */
export function watchedTargets(table: Pick<TargetTable, 'list'>): WatchedTarget[] {
  return table
    .list(() => ({}))
    .filter((t) => t.state === 'active')
    .map((t) => ({ name: t.name, identity: runtimeIdentity(t.name, t.generation) }));
}

export interface TargetHealthDeps {
  /** The active targets now (draining and removed ones are not probed). */
  watched: () => WatchedTarget[];
  /** Look at one target by name; never throws; undefined when its backend has no look that costs nothing. */
  probe: (name: string) => Promise<ProbeOutcome | undefined>;
  /** A probe that got through clears a failure a call reported earlier (the sidebar turns green again). */
  reachableAgain: (identity: string) => void;
  /**
   * Something the sidebar shows changed: `news` when a state, problem or detail did; false when only when it was
   * last checked did (a fleet's looks every minute batch those).
   */
  onChange: (news: boolean) => void;
  timing?: Partial<HealthTiming>;
}

interface Entry {
  name: string;
  status: TargetHealthInfo['status'];
  checkedAt?: string;
  detail?: string;
  problem?: string;
  cwdProblem?: string;
  failures: number;
  timer?: NodeJS.Timeout;
  probing: boolean;
  /** When a call last got through (ms): a probe that failed and started before it is out of date. */
  reachedAt: number;
  /** Looks answered so far: the first one's successor is placed at random in the interval (spreading a fleet). */
  looks: number;
  queued: boolean;
}

export interface HealthView {
  health: TargetHealthInfo;
  problem?: string;
  cwdProblem?: string;
}

export class TargetHealth {
  private readonly entries = new Map<string, Entry>();
  private readonly timing: HealthTiming;
  private stopped = false;
  private running = 0;
  /** Identities whose look is due while `concurrency` others run, oldest first. */
  private readonly waiting: string[] = [];

  constructor(private readonly deps: TargetHealthDeps) {
    this.timing = { ...defaultHealthTiming, ...deps.timing };
  }

  /** Follow the targets as they are now: new ones are probed at once, gone ones forgotten. */
  sync(): void {
    if (this.stopped) return;
    const now = new Map(this.deps.watched().map((t) => [t.identity, t]));
    for (const [identity, e] of this.entries) {
      if (now.has(identity)) continue;
      clearTimeout(e.timer);
      this.entries.delete(identity);
    }
    for (const [identity, t] of now) {
      if (this.entries.has(identity)) continue;
      this.entries.set(identity, {
        name: t.name,
        status: 'checking',
        failures: 0,
        probing: false,
        reachedAt: 0,
        looks: 0,
        queued: false,
      });
      this.schedule(identity, 0);
    }
  }

  /** What the sidebar shows of one identity; undefined when it is not followed (draining, removed). */
  view(identity: string): HealthView | undefined {
    const e = this.entries.get(identity);
    if (!e) return undefined;
    const health: TargetHealthInfo = {
      status: e.status,
      ...(e.checkedAt ? { checked_at: e.checkedAt } : {}),
      ...(e.detail ? { detail: e.detail } : {}),
    };
    return {
      health,
      ...(e.problem ? { problem: e.problem } : {}),
      ...(e.cwdProblem ? { cwdProblem: e.cwdProblem } : {}),
    };
  }

  /** A call on this identity could not reach it: show it, and check again soon (backed off). */
  failed(identity: string, problem: string): void {
    const e = this.entries.get(identity);
    if (!e) return;
    if (e.status !== 'unreachable' || e.problem !== problem) {
      e.status = 'unreachable';
      e.problem = problem;
      e.checkedAt = new Date().toISOString();
      this.deps.onChange(true);
    }
    if (!e.probing) this.schedule(identity, this.retryDelay(e));
  }

  /**
   * A call on this identity got through: it is reachable now, not at the next probe (which comes at the usual
   * interval). A probe under way that fails was started before this and does not undo it.
   */
  reached(identity: string): void {
    const e = this.entries.get(identity);
    if (!e) return;
    e.reachedAt = Date.now();
    if (e.status === 'reachable' && e.problem === undefined) return;
    e.status = 'reachable';
    e.problem = undefined;
    e.failures = 0;
    e.checkedAt = new Date().toISOString();
    if (!e.probing) this.schedule(identity, this.timing.reachableMs);
    this.deps.onChange(true);
  }

  /** Probe now (a person asked, or a doctor run is not at hand). */
  checkNow(identity: string): void {
    if (this.entries.has(identity)) this.schedule(identity, 0);
  }

  /** A probe made elsewhere (doctor) counts as this identity's latest check. */
  record(identity: string, outcome: ProbeOutcome): void {
    const e = this.entries.get(identity);
    if (!e || e.probing) return;
    this.apply(identity, e, outcome);
  }

  stop(): void {
    this.stopped = true;
    for (const e of this.entries.values()) clearTimeout(e.timer);
    this.entries.clear();
    this.waiting.length = 0;
  }

  /** `exact`: no jitter (the delay is already a random point of the interval). */
  private schedule(identity: string, ms: number, exact = false): void {
    const e = this.entries.get(identity);
    if (!e || this.stopped) return;
    clearTimeout(e.timer);
    // A little jitter, so many targets added at once are not probed in lockstep for ever after.
    const delay = ms === 0 || exact ? Math.round(ms) : Math.round(ms * (0.9 + Math.random() * 0.2));
    e.timer = setTimeout(() => void this.run(identity), delay);
    e.timer.unref();
  }

  private async run(identity: string): Promise<void> {
    const e = this.entries.get(identity);
    if (!e || e.probing || e.queued || this.stopped) return;
    // A call got through within the interval: that is fresher news than a look would bring.
    const sinceCall = Date.now() - e.reachedAt;
    if (e.status === 'reachable' && sinceCall < this.timing.reachableMs) {
      this.schedule(identity, this.timing.reachableMs - sinceCall, true);
      return;
    }
    if (this.running >= this.timing.concurrency) {
      e.queued = true;
      this.waiting.push(identity);
      return;
    }
    // A reachable target stays green while it is checked again; only one never answered shows `checking`.
    e.probing = true;
    this.running++;
    const started = Date.now();
    let outcome: ProbeOutcome | undefined;
    try {
      outcome = await this.deps.probe(e.name);
    } finally {
      e.probing = false;
      this.running--;
      this.next();
    }
    if (this.entries.get(identity) !== e || this.stopped) return;
    if (outcome === undefined) {
      // No look costs nothing on this backend: what calls meet is its health; asked again in case a plugin gains one.
      if (e.status === 'checking') {
        e.status = 'unchecked';
        this.deps.onChange(true);
      }
      this.schedule(identity, this.timing.reachableMs);
      return;
    }
    if (!outcome.ok && e.reachedAt >= started) {
      // A call got through while this probe was failing: the call is the newer news.
      this.schedule(identity, this.timing.reachableMs);
      return;
    }
    this.apply(identity, e, outcome);
  }

  /** Start the oldest waiting look, if there is room. */
  private next(): void {
    while (this.running < this.timing.concurrency && this.waiting.length > 0) {
      const identity = this.waiting.shift()!;
      const e = this.entries.get(identity);
      if (!e) continue;
      e.queued = false;
      void this.run(identity);
    }
  }

  private apply(identity: string, e: Entry, outcome: ProbeOutcome): void {
    const before = [e.status, e.problem, e.detail, e.cwdProblem].join('\0');
    e.checkedAt = new Date().toISOString();
    e.looks++;
    if (outcome.ok) {
      e.status = 'reachable';
      e.problem = undefined;
      e.detail = outcome.detail;
      e.cwdProblem = outcome.cwdProblem;
      e.failures = 0;
      this.deps.reachableAgain(identity);
    } else {
      e.status = 'unreachable';
      e.problem = outcome.problem ?? 'the probe failed';
      e.failures++;
    }
    if (outcome.ok && e.looks === 1) this.schedule(identity, Math.random() * this.timing.reachableMs, true);
    else this.schedule(identity, outcome.ok ? this.timing.reachableMs : this.retryDelay(e));
    // Every answer is news, if only for "checked 3 s ago"; a changed state is news at once.
    this.deps.onChange([e.status, e.problem, e.detail, e.cwdProblem].join('\0') !== before);
  }

  private retryDelay(e: Entry): number {
    return backoffMs(e.failures - 1, this.timing.retryMinMs, this.timing.retryMaxMs);
  }
}
