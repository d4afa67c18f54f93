// Warm shells: a runtime identity's few long-lived shells that run tool calls without starting a process per call.
//
// A pool belongs to one Environment (one runtime identity) and is never shared. It grows when calls run at once
// (up to `max`; past that the caller falls back to starting a shell per call) and shrinks when shells sit idle. A
// call runs in a subshell with a process group of its own (warmProgram.ts); a timeout or cancel kills that group,
// and the shell, once it has reaped it, takes the next call. A shell is retired, never reused, when something of a
// call lives on in its group (a `cmd &` that could print into the next call's output), when it would not answer
// after a stop, or when it died (the call in it says so).
import type { ShellRun } from './execWrapped.js';
import { warmPrelude, type WarmCall } from './warmProgram.js';

/** A shell process as its backend started it (`bash -s`, stdin open, its own process group). */
export interface WarmProcess {
  write(text: string): void;
  /** Close stdin: the shell ends once the call it runs (if any) is over. */
  end(): void;
  onStdout(listener: (text: string) => void): void;
  onStderr(listener: (text: string) => void): void;
  /** The shell exited (or could not be started). */
  onExit(listener: () => void): void;
  /** End a call's process group: TERM, then KILL after a grace period. */
  killGroup(pgid: number): Promise<void>;
  /**
   * Whether any process of the group lives on. Without it (a remote shell, where asking costs a round trip) the
   * shell's own answer on the call's end line is taken.
   */
  groupAlive?(pgid: number): boolean;
  /** What the shell is sent once before its first call; warmProgram's bash program unless the backend says. */
  prelude?: string;
}

/** A remote shell's carrier once it is open (an SSH session channel, a container exec's stream). */
export interface ShellCarrier {
  write(text: string): void;
  end(): void;
}

/** Where a carrier hands what the shell prints, and says that it exited. */
export interface ShellSink {
  stdout(text: string): void;
  stderr(text: string): void;
  exited(): void;
}

/**
 * A WarmProcess whose carrier is still being opened: what it is sent waits for the carrier, and a carrier that never
 * opens (`open` throws) is the shell's exit, after `openFailed` has been told why.
 */
export function openingWarmProcess(
  open: (sink: ShellSink) => Promise<ShellCarrier>,
  openFailed: (err: unknown) => void,
  rest: Pick<WarmProcess, 'killGroup' | 'groupAlive' | 'prelude'>,
): WarmProcess {
  const out: Array<(text: string) => void> = [];
  const err: Array<(text: string) => void> = [];
  const exit: Array<() => void> = [];
  let carrier: ShellCarrier | undefined;
  let queued = '';
  let ending = false;
  let exited = false;
  const sink: ShellSink = {
    stdout: (text) => out.forEach((l) => l(text)),
    stderr: (text) => err.forEach((l) => l(text)),
    exited: () => {
      if (exited) return;
      exited = true;
      for (const l of exit) l();
    },
  };
  open(sink).then(
    (opened) => {
      carrier = opened;
      if (queued) opened.write(queued);
      queued = '';
      if (ending) opened.end();
    },
    (e: unknown) => {
      openFailed(e);
      sink.exited();
    },
  );
  return {
    ...rest,
    write: (text) => {
      if (carrier) carrier.write(text);
      else queued += text;
    },
    end: () => {
      ending = true;
      carrier?.end();
    },
    onStdout: (l) => out.push(l),
    onStderr: (l) => err.push(l),
    onExit: (l) => exit.push(l),
  };
}

/** SWITCHBOARD_DEBUG=1: which path each call took (warm shell or one of its own), on the Core's stderr. */
export function debugLine(line: string): void {
  if (process.env.SWITCHBOARD_DEBUG) process.stderr.write(`switchboard debug: ${line}\n`);
}

/** The control line a warm shell prints on stderr once a call's subshell started: `<pid tag> <pgid>`. */
export const warmPidLine = /^(__SB_WARM_PID_[0-9a-f]+__) (\d+)$/;

/** What the shell of an interrupted call ended with; the call's output says it. */
const diedNote = 'the warm shell running this call ended; the next call gets a new one';

/** One warm shell: one call at a time. */
export class WarmShell {
  private dead = false;
  private retired = false;
  private current: ((event: { kind: 'out'; text: string } | { kind: 'pid'; pgid: number } | { kind: 'died' }) => void) | undefined;
  private errText = '';
  idleSince = Date.now();

  constructor(readonly proc: WarmProcess, private readonly onGone: (shell: WarmShell) => void) {
    proc.onStdout((text) => this.current?.({ kind: 'out', text }));
    proc.onStderr((text) => {
      // Control lines only; anything else bash says about its jobs is dropped.
      this.errText = (this.errText + text).slice(-4096);
      for (let nl = this.errText.indexOf('\n'); nl >= 0; nl = this.errText.indexOf('\n')) {
        const line = this.errText.slice(0, nl);
        this.errText = this.errText.slice(nl + 1);
        const m = warmPidLine.exec(line);
        if (m && this.current) this.current({ kind: 'pid', pgid: Number(m[2]) });
      }
    });
    proc.onExit(() => {
      this.dead = true;
      this.current?.({ kind: 'died' });
      this.onGone(this);
    });
    proc.write(proc.prelude ?? warmPrelude());
  }

  /** Alive, not retired and not running a call. */
  get usable(): boolean {
    return !this.dead && !this.retired && this.current === undefined;
  }

  /** Take no more calls; the shell ends when the call it runs is over (or now, when it runs none). */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    this.proc.end();
    if (this.current === undefined) this.onGone(this);
  }

  /** Start one call (warmCall's line); `sink` gets what it prints (stdout and stderr), never a control line. */
  run(call: WarmCall, sink: (text: string) => void): ShellRun {
    const { tags } = call;
    let pending = '';
    let pgid: number | undefined;
    let stopAsked = false;
    let code: number | undefined;
    let died = false;
    let detached = false;
    let finish: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    const over = (): void => {
      if (this.current !== listener) return;
      this.current = undefined;
      this.runningGroup = undefined;
      finish();
    };
    const emit = (text: string): void => {
      if (!detached && text) sink(text);
    };
    const listener = (event: { kind: 'out'; text: string } | { kind: 'pid'; pgid: number } | { kind: 'died' }): void => {
      if (event.kind === 'pid') {
        pgid = event.pgid;
        this.runningGroup = pgid;
        if (stopAsked) void this.stopGroup(pgid);
        return;
      }
      if (event.kind === 'died') {
        died = true;
        emit(pending);
        pending = '';
        // Whatever the call started may outlive its shell; it is not left running.
        if (pgid !== undefined) void this.proc.killGroup(pgid);
        over();
        return;
      }
      pending += event.text;
      const at = pending.indexOf(`\n${tags.end} `);
      if (at < 0) {
        // Hold back what could be the start of the end line.
        const keep = tags.end.length + 1;
        if (pending.length > keep) {
          emit(pending.slice(0, -keep));
          pending = pending.slice(-keep);
        }
        return;
      }
      emit(pending.slice(0, at));
      pending = pending.slice(at);
      const eol = pending.indexOf('\n', 1);
      if (eol < 0) return;
      const [status, left] = pending.slice(tags.end.length + 2, eol).split(' ');
      code = Number(status);
      pending = '';
      // A stopped call's group is being killed (TERM, then KILL): what is left of it is on its way out.
      if (!stopAsked) this.afterCall(pgid, left === '1');
      else this.idleSince = Date.now();
      over();
    };
    this.current = listener;
    this.proc.write(call.script);
    const run: ShellRun = {
      ended,
      exited: () => ended,
      exitStatus: async () => (died ? { code: code ?? 1, note: diedNote } : { code: code ?? 1 }),
      stop: () => {
        stopAsked = true;
        if (pgid !== undefined) void this.stopGroup(pgid);
        else this.stopUnstarted(listener);
      },
      detach: () => {
        detached = true;
      },
    };
    return run;
  }

  /** Kill a stopped call's group; a shell that has not reaped it a second later is retired and the call ends. */
  private async stopGroup(pgid: number): Promise<void> {
    const listener = this.current;
    await this.proc.killGroup(pgid);
    setTimeout(() => {
      if (this.current !== listener || listener === undefined) return;
      this.retire();
      listener({ kind: 'died' });
    }, 1000).unref();
  }

  /**
   * A stopped call whose subshell never said it started (it died before it read the call, or the shell no longer
   * answers): after a second the shell is retired and the call ends with the note that its shell did.
   */
  private stopUnstarted(listener: typeof this.current): void {
    setTimeout(() => {
      if (this.current !== listener || listener === undefined || this.runningGroup !== undefined) return;
      this.retire();
      listener({ kind: 'died' });
    }, 1000).unref();
  }

  /** After a call: a shell whose call left something running in its group is not reused. */
  private afterCall(pgid: number | undefined, shellSawLeft: boolean): void {
    this.idleSince = Date.now();
    if (pgid !== undefined && (this.proc.groupAlive ? this.proc.groupAlive(pgid) : shellSawLeft)) {
      this.leftovers.add(pgid);
      this.retire();
    }
  }

  /** The process group of the call running now, once the shell has said it. */
  runningGroup: number | undefined;

  /** Process groups that calls in this shell left running (`cmd &`): ended when the identity is cleaned up. */
  readonly leftovers = new Set<number>();

  get isRetired(): boolean {
    return this.retired || this.dead;
  }
}

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
export class WarmShellPool {
  private readonly shells = new Set<WarmShell>();
  private readonly leftovers = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: WarmPoolOptions, private readonly killGroup: (pgid: number) => Promise<void>, private readonly groupAlive?: (pgid: number) => boolean) {
    this.timer = setInterval(() => this.shrink(), Math.min(opts.idleMs ?? 10_000, 5000));
    this.timer.unref();
  }

  /** A shell for one call, or undefined when the pool is full (the caller starts a shell of its own). */
  acquire(): WarmShell | undefined {
    if (this.closed) return undefined;
    for (const s of this.shells) if (s.usable) return s;
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
    for (const s of this.shells) {
      for (const g of s.leftovers) this.leftovers.add(g);
      if (s.runningGroup !== undefined) this.leftovers.add(s.runningGroup);
      s.retire();
    }
    await Promise.all([...this.leftovers].filter((g) => this.groupAlive?.(g) ?? true).map((g) => this.killGroup(g)));
  }
}
