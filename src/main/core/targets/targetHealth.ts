// The Core's view of each target's health: probed when it appears, again every so often, sooner (with backoff)
// while it fails, and whenever a call on it fails; doctor's results count as probes too. Calls count at once both
// ways: one that got through shows the target reachable, one that could not connect shows it unreachable.
import type { TargetHealthInfo } from '../../../shared/targets.js';
import type { ProbeOutcome } from './probeTarget.js';

export interface HealthTiming {
  /** A reachable target is checked again after this long. */
  reachableMs: number;
  /** The first retry of a failing target; each further failure doubles it, up to `retryMaxMs`. */
  retryMinMs: number;
  retryMaxMs: number;
}

export const defaultHealthTiming: HealthTiming = { reachableMs: 60_000, retryMinMs: 5_000, retryMaxMs: 300_000 };

/** One active target the health checks follow. */
export interface WatchedTarget {
  name: string;
  identity: string;
}

export interface TargetHealthDeps {
  /** The active targets now (draining and removed ones are not probed). */
  watched: () => WatchedTarget[];
  /** Probe one target by name; never throws. */
  probe: (name: string) => Promise<ProbeOutcome>;
  /** A probe that got through clears a failure a call reported earlier (the sidebar turns green again). */
  reachableAgain: (identity: string) => void;
  /** Something the sidebar shows changed. */
  onChange: () => void;
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
      this.entries.set(identity, { name: t.name, status: 'checking', failures: 0, probing: false, reachedAt: 0 });
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
      this.deps.onChange();
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
    this.deps.onChange();
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
  }

  private schedule(identity: string, ms: number): void {
    const e = this.entries.get(identity);
    if (!e || this.stopped) return;
    clearTimeout(e.timer);
    // A little jitter, so many targets added at once are not probed in lockstep for ever after.
    const delay = ms === 0 ? 0 : Math.round(ms * (0.9 + Math.random() * 0.2));
    e.timer = setTimeout(() => void this.run(identity), delay);
    e.timer.unref();
  }

  private async run(identity: string): Promise<void> {
    const e = this.entries.get(identity);
    if (!e || e.probing || this.stopped) return;
    // A reachable target stays green while it is checked again; only one never answered shows `checking`.
    e.probing = true;
    const started = Date.now();
    let outcome: ProbeOutcome;
    try {
      outcome = await this.deps.probe(e.name);
    } finally {
      e.probing = false;
    }
    if (this.entries.get(identity) !== e || this.stopped) return;
    if (!outcome.ok && e.reachedAt >= started) {
      // A call got through while this probe was failing: the call is the newer news.
      this.schedule(identity, this.timing.reachableMs);
      return;
    }
    this.apply(identity, e, outcome);
  }

  private apply(identity: string, e: Entry, outcome: ProbeOutcome): void {
    e.checkedAt = new Date().toISOString();
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
    this.schedule(identity, outcome.ok ? this.timing.reachableMs : this.retryDelay(e));
    // Every answer is news, if only for "checked 3 s ago": at most one per target a minute while it is fine.
    this.deps.onChange();
  }

  private retryDelay(e: Entry): number {
    return Math.min(this.timing.retryMaxMs, this.timing.retryMinMs * 2 ** Math.max(0, e.failures - 1));
  }
}
