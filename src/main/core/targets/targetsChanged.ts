// When the window hears that its targets changed: a change it shows as a state, problem or detail at once (30 ms
// coalescing), one that only moves "checked at" in a 5 s batch, so a fleet's health looks cost the window twelve
// `targets.changed` a minute, not hundreds (docs/architecture.md, "Target health"). `targets.problems` goes out with
// it only when the config problems differ from the last ones sent.
import type { TargetInfo } from '../../../shared/targets.js';

export const TARGETS_SOON_MS = 30;
export const TARGETS_LATER_MS = 5_000;

export interface TargetsChangedDeps {
  list: () => TargetInfo[];
  problems: () => string[];
  /** Sends `targets.changed`. */
  changed: (list: TargetInfo[]) => void;
  /** Sends `targets.problems`. */
  problemsChanged: (problems: string[]) => void;
}

export class TargetsChanged {
  private timer: NodeJS.Timeout | undefined;
  /** When the pending notice goes out (ms). */
  private due = 0;
  private lastProblems = '';

  constructor(private readonly deps: TargetsChangedDeps) {}

  /**
   * A change is due: `news` (the default) when a row shows something new, false when only when it was checked moved.
   * A burst coalesces into one notice; a sooner one replaces a later one, a later one never delays a sooner one.
   */
  schedule(news = true): void {
    const delay = news ? TARGETS_SOON_MS : TARGETS_LATER_MS;
    const due = Date.now() + delay;
    if (this.timer && this.due <= due) return;
    clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(() => this.send(), delay);
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private send(): void {
    this.timer = undefined;
    this.deps.changed(this.deps.list());
    const problems = this.deps.problems();
    const key = problems.join('\n');
    if (key === this.lastProblems) return;
    this.lastProblems = key;
    this.deps.problemsChanged(problems);
  }
}
