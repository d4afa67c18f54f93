// Tells a caller that asked for it how a long tool call is getting on: held for a person's approval, or running and
// how much it printed. A client whose timeout restarts on progress (MCP's resetTimeoutOnProgress) keeps waiting.
import type { ProgressNote } from '../../../shared/api.js';

/** A call that has run this long says so the first time. */
export const FIRST_PROGRESS_MS = 1000;
/**
 * Then every this often, and at once when it is held for approval. Short enough for a client whose timeout restarts on
 * progress to keep waiting with a timeout of a few seconds; one small message per call, so it costs next to nothing.
 */
export const PROGRESS_EVERY_MS = 2000;

/** What the watch reads of a running call's output (the call's OutputSpool). */
export interface OutputCount {
  readonly bytes: number;
}

export class CallProgress {
  private timer: NodeJS.Timeout | undefined;
  private held: { askedAt: number; deniesAt: number } | undefined;
  private output: OutputCount | undefined;
  private last = 0;
  private stopped = false;

  constructor(
    private readonly send: (note: ProgressNote) => void,
    private readonly target: string | undefined,
    private readonly started = Date.now(),
  ) {
    this.schedule(FIRST_PROGRESS_MS);
  }

  /** The call waits for a person from now (ISO times as the approval has them): said at once, then every 2 s. */
  asked(createdAt: string, expiresAt: string): void {
    this.held = { askedAt: Date.parse(createdAt), deniesAt: Date.parse(expiresAt) };
    this.tick();
  }

  /** The person answered (or the call needed nobody): from now on it is running. */
  answered(): void {
    this.held = undefined;
  }

  /** Where the running call's output is counted. */
  counting(output: OutputCount): void {
    this.output = output;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref();
  }

  private tick(): void {
    if (this.stopped) return;
    const now = Date.now();
    // Strictly growing, as MCP asks of `progress`: the seconds the call has taken, never the same twice.
    const progress = Math.max(Math.round((now - this.started) / 100) / 10, this.last + 0.1);
    this.last = progress;
    try {
      this.send({ progress, message: this.message(now) });
    } catch {
      // A caller that went away gets nothing more; its call is cancelled by its own transport.
      return this.stop();
    }
    this.schedule(PROGRESS_EVERY_MS);
  }

  private message(now: number): string {
    const on = this.target ? ` on ${this.target}` : '';
    if (this.held) {
      const asked = Math.max(0, Math.round((now - this.held.askedAt) / 1000));
      const left = Math.max(0, Math.round((this.held.deniesAt - now) / 1000));
      return `waiting for a person to approve${on} (asked ${asked} s ago, denies in ${clock(left)})`;
    }
    const ran = `running${on} for ${Math.round((now - this.started) / 1000)} s`;
    const bytes = this.output?.bytes ?? 0;
    return bytes > 0 ? `${ran}, ${size(bytes)} of output so far` : ran;
  }
}

/** 106 → `1:46`. */
function clock(sec: number): string {
  return `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, '0')}`;
}

/** A size as a person reads it: `512 B`, `48 KB`, `3.2 MB`. */
export function size(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
