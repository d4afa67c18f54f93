// A runtime identity's warm shells (warmShell.ts): grown when calls run at once, shrunk when they sit idle.
//
// A pool belongs to one Environment (one runtime identity) and is never shared. It grows when calls run at once (up
// to `max`; past that the caller falls back to starting a shell per call), and a call goes to the shell that ran the
// last one when it is free, so sequential calls stay in one shell and the others idle out and end.
import { WarmShell, type WarmProcess } from './warmShell.js';
import { settleWithin } from '../../platform/index.js';

/** The longest a call waits for a shell finishing the call before (it reports its end a moment after the answer). */
const settleWaitMs = 1000;

export interface WarmPoolOptions {
  /** Start one shell process. */
  start: () => WarmProcess;
  /** At most this many shells (default 4); a call past that runs in a shell of its own. */
  max?: number;
  /** A shell idle this long is ended, except the last one. */
  idleMs?: number;
  /** The last shell is ended after this long without a call. */
  lastIdleMs?: number;
}

/** The warm shells of one runtime identity. */
/** How long closing waits for its shells' processes to exit after their stdin was closed. */
const CLOSE_WAIT_MS = 3000;

export class WarmShellPool {
  private readonly shells = new Set<WarmShell>();
  private readonly leftovers = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly opts: WarmPoolOptions,
    private readonly killGroup: (pgid: number) => Promise<void>,
    private readonly groupAlive?: (pgid: number) => boolean,
  ) {
    this.timer = setInterval(() => this.shrink(), Math.min(opts.idleMs ?? 10_000, 5000));
    this.timer.unref();
  }

  /**
   * When a shell is finishing an answered call (it reports the end a moment later): resolves when one has, or after
   * settleWaitMs. Waiting keeps sequential calls in the shell they ran in, rather than one started or left idle for
   * calls that came at once. Callers await it (when it is not undefined) and then acquire, with no await between.
   */
  settling(): Promise<boolean> | undefined {
    if (this.closed) return undefined;
    const finishing: Promise<void>[] = [];
    for (const s of this.shells) if (s.finishing && !s.isRetired) finishing.push(s.finishing);
    if (finishing.length === 0) return undefined;
    return settleWithin(Promise.race(finishing), settleWaitMs);
  }

  /** A shell for one call, or undefined when the pool is full (the caller starts a shell of its own). */
  acquire(): WarmShell | undefined {
    if (this.closed) return undefined;
    // The shell that ran the last call, when it is free: sequential calls stay in one shell, the others idle out.
    let free: WarmShell | undefined;
    for (const s of this.shells) if (s.usable && (!free || s.lastRun > free.lastRun)) free = s;
    if (free) return free;
    if (this.shells.size >= (this.opts.max ?? 4)) return undefined;
    const shell = new WarmShell(this.opts.start(), (gone) => {
      for (const g of gone.leftovers) this.leftovers.add(g);
      this.shells.delete(gone);
    });
    this.shells.add(shell);
    return shell;
  }

  /** Retire every shell (their calls finish first): the environment they were started with is out of date. */
  renew(): void {
    for (const s of this.shells) s.retire();
  }

  private shrink(): void {
    const now = Date.now();
    const idle = [...this.shells].filter((s) => s.usable).sort((a, b) => a.idleSince - b.idleSince);
    const busy = this.shells.size - idle.length;
    idle.forEach((s, i) => {
      const last = busy === 0 && i === idle.length - 1;
      if (now - s.idleSince > (last ? (this.opts.lastIdleMs ?? 300_000) : (this.opts.idleMs ?? 10_000))) s.retire();
    });
  }

  /** End every shell and what calls left running in their groups. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const shells = [...this.shells];
    // A call answered a moment ago may have left something in its group, and the shell has not said so yet: its end
    // line (whether anything is left, and the group, which the pid line may not have brought yet) is waited for as a
    // next call would wait for it. Without it a cleanup right after such a call left its job running.
    const finishing = shells.flatMap((s) => (s.finishing ? [s.finishing] : []));
    if (finishing.length) await settleWithin(Promise.all(finishing), settleWaitMs);
    for (const s of shells) {
      for (const g of s.leftovers) this.leftovers.add(g);
      if (s.runningGroup !== undefined) this.leftovers.add(s.runningGroup);
      s.retire();
    }
    await Promise.all([...this.leftovers].filter((g) => this.groupAlive?.(g) ?? true).map((g) => this.killGroup(g)));
    // The shells end once their stdin is closed (a sandboxed one may still be setting up its mounts): a closed pool
    // has nothing of its own running, within a bound.
    await settleWithin(Promise.all(shells.map((s) => s.exited)), CLOSE_WAIT_MS);
  }
}
