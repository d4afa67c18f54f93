// Warm shells: a runtime identity's few long-lived shells that run tool calls without starting a process per call.
//
// The identity's pool of them is warmShellPool.ts. A call runs in a subshell with a process group of its own
// (warmProgram.ts); a timeout or cancel kills that group, and the shell, once it has reaped it, takes the next call. A
// shell is retired, never reused, when something of a call lives on in its group (a `cmd &` that could print into the
// next call's output), when it would not answer after a stop, or when it died (the call in it says so).
import { warmPrelude, type WarmCall } from './warmProgram.js';
import { type RunShell, WarmRun } from './warmRun.js';

/** A shell process as its backend started it (`bash -s`, stdin open, its own process group). */
export interface WarmProcess {
  write(text: string): void;
  /** Close stdin: the shell ends once the call it runs (if any) is over. */
  end(): void;
  onStdout(listener: (text: string) => void): void;
  onStderr(listener: (text: string) => void): void;
  /** The shell exited (or could not be started). */
  onExit(listener: () => void): void;
  /** End a call's process group gently: HUP and TERM, then KILL after a grace period (processes/endGently.ts). */
  killGroup(pgid: number): Promise<void>;
  /**
   * Whether any process of the group lives on. Without it (a remote shell, where asking costs a round trip) the
   * shell's own answer on the call's end line is taken.
   */
  groupAlive?(pgid: number): boolean;
  /** What the shell is sent once before its first call; warmProgram's bash program unless the backend says. */
  prelude?: string;
}

/** A remote shell's carrier once it is open (an SSH channel, a container exec's stream). */
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

/** One warm shell: one call at a time (warmRun.ts reads each call from what the shell prints). */
export class WarmShell implements RunShell {
  /** Calls taken by all shells so far: `lastRun` says which shell took the latest. */
  private static runs = 0;
  /** The shell's process exited. */
  private dead = false;
  /** It takes no more calls, and ends once the call it runs is over. */
  private retired = false;
  /** The call it runs now; undefined between calls. */
  private current: WarmRun | undefined;
  /** Stderr not yet split into lines (only control lines are kept). */
  private errText = '';
  /** When the shell last ended a call (or started): the pool ends shells idle too long. */
  idleSince = Date.now();
  /** When this shell last took a call (a count of calls taken by all shells). */
  lastRun = 0;
  /** Process groups that calls in this shell left running (`cmd &`): ended when the identity is cleaned up. */
  readonly leftovers = new Set<number>();
  /** Resolves once the shell's process has exited. */
  readonly exited: Promise<void>;

  constructor(
    readonly proc: WarmProcess,
    private readonly onGone: (shell: WarmShell) => void,
  ) {
    let exited: () => void = () => undefined;
    this.exited = new Promise<void>((resolve) => (exited = resolve));
    proc.onStdout((text) => this.current?.on({ kind: 'out', text }));
    proc.onStderr((text) => this.readStderr(text));
    proc.onExit(() => {
      exited();
      this.dead = true;
      this.current?.on({ kind: 'died' });
      this.onGone(this);
    });
    proc.write(proc.prelude ?? warmPrelude());
  }

  /** Alive, not retired and not running a call. */
  get usable(): boolean {
    return !this.dead && !this.retired && this.current === undefined;
  }

  get isRetired(): boolean {
    return this.retired || this.dead;
  }

  /** While an answered (or stopped) call's shell has not yet reported its end: resolves when it has. */
  get finishing(): Promise<void> | undefined {
    return this.current?.finishing;
  }

  /** The process group of the call running now, once the shell has said it. */
  get runningGroup(): number | undefined {
    return this.current?.group;
  }

  /** Start one call (warmCall's line); `sink` gets what it prints (stdout and stderr), never a control line. */
  run(call: WarmCall, sink: (text: string) => void): WarmRun {
    const run = new WarmRun(this, call.tags, sink);
    this.current = run;
    this.lastRun = ++WarmShell.runs;
    this.proc.write(call.script);
    return run;
  }

  /** Take no more calls; the shell ends when the call it runs is over (or now, when it runs none). */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    this.proc.end();
    if (this.current === undefined) this.onGone(this);
  }

  killGroup(pgid: number): Promise<void> {
    return this.proc.killGroup(pgid);
  }

  /** A shell whose call left something running in its group is not reused (see RunShell.callEnded). */
  callEnded(pgid: number | undefined, left: boolean | undefined): void {
    this.idleSince = Date.now();
    if (left === undefined || pgid === undefined) return;
    if (this.proc.groupAlive ? this.proc.groupAlive(pgid) : left) {
      this.leftovers.add(pgid);
      this.retire();
    }
  }

  release(run: WarmRun): void {
    if (this.current === run) this.current = undefined;
  }

  /** Control lines only; anything else bash says about its jobs is dropped. */
  private readStderr(text: string): void {
    this.errText = (this.errText + text).slice(-4096);
    for (let nl = this.errText.indexOf('\n'); nl >= 0; nl = this.errText.indexOf('\n')) {
      const line = this.errText.slice(0, nl);
      this.errText = this.errText.slice(nl + 1);
      const m = warmPidLine.exec(line);
      if (m) this.current?.on({ kind: 'pid', tag: m[1] ?? '', pgid: Number(m[2]) });
    }
  }
}
