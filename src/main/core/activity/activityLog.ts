// The Activity feed: the newest tool calls as the dispatcher reports them, one entry per call updated in place.
import type { ActivityEntry } from '../../../shared/api.js';

export const ACTIVITY_KEPT = 500;

export class ActivityLog {
  private readonly entries: ActivityEntry[];

  /** `earlier`: what the feed showed before this Core started (read back from audit.jsonl), oldest first. */
  constructor(
    private readonly onEntry: (entry: ActivityEntry) => void,
    earlier: readonly ActivityEntry[] = [],
  ) {
    this.entries = earlier.slice(-ACTIVITY_KEPT);
  }

  record(entry: ActivityEntry): void {
    // From the newest: an update is nearly always of a call that just started, not of one 500 entries back.
    const i = this.entries.findLastIndex((e) => e.id === entry.id);
    if (i >= 0) this.entries[i] = entry;
    else {
      this.entries.push(entry);
      if (this.entries.length > ACTIVITY_KEPT) this.entries.shift();
    }
    this.onEntry(entry);
  }

  list(limit = 200): ActivityEntry[] {
    return this.entries.slice(-limit);
  }
}
