// Warm shells: a runtime identity's few long-lived shells that run tool calls without starting a process per call.
//
// The identity's pool of them is warmShellPool.ts. A call runs in a subshell with a process group of its own
// (warmProgram.ts); a timeout or cancel kills that group, and the shell, once it has reaped it, takes the next call. A
// shell is retired, never reused, when something of a call lives on in its group (a `cmd &` that could print into the
// next call's output), when it would not answer after a stop, or when it died (the call in it says so).
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

/** What the shell of an interrupted call ended with; the call's output says it. */
const diedNote = 'the warm shell running this call ended; the next call gets a new one';

/** One warm shell: one call at a time. */
export class WarmShell {
  private dead = false;
  private retired = false;
  private current:
    | ((event: { kind: 'out'; text: string } | { kind: 'pid'; pgid: number } | { kind: 'died' }) => void)
    | undefined;
  private errText = '';
  idleSince = Date.now();

  /** Resolves once the shell's process has exited. */
  readonly exited: Promise<void>;

  constructor(
    readonly proc: WarmProcess,
    private readonly onGone: (shell: WarmShell) => void,
  ) {
    let exited: () => void = () => undefined;
    this.exited = new Promise<void>((resolve) => (exited = resolve));
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
      exited();
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

  /**
   * Start one call (warmCall's line); `sink` gets what it prints (stdout and stderr), never a control line. The call
   * is answered at its done line (the exit status its EXIT trap printed after the marker line); the shell takes its
   * next call only after the end line, once it has reaped the subshell and looked for what it left running. A call
   * whose trap did not run (its subshell was killed, or `exec` replaced it) is answered at the end line.
   */
  run(call: WarmCall, sink: (text: string) => void): ShellRun {
    const { tags } = call;
    let pending = '';
    let pgid: number | undefined;
    let stopAsked = false;
    let code: number | undefined;
    let answered = false;
    let died = false;
    let detached = false;
    let finish: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    let settle: () => void = () => undefined;
    /** Gives up on the end line of an answered call; cleared once it came, so it does not keep the call's output. */
    let endWait: NodeJS.Timeout | undefined;
    this.finishing = undefined;
    const answer = (): void => {
      if (answered) return;
      answered = true;
      finish();
    };
    const over = (): void => {
      clearTimeout(endWait);
      if (this.current !== listener) return;
      this.current = undefined;
      this.runningGroup = undefined;
      this.finishing = undefined;
      answer();
      settle();
    };
    const emit = (text: string): void => {
      if (!detached && !answered && text) sink(text);
    };
    /** The exit status on a control line that starts at `at` in `pending` (`<tag> <status>…\n`), once it is whole. */
    const controlLine = (at: number, tag: string): string[] | undefined => {
      const eol = pending.indexOf('\n', at);
      return eol < 0 ? undefined : pending.slice(at + tag.length + 1, eol).split(' ');
    };
    const listener = (
      event: { kind: 'out'; text: string } | { kind: 'pid'; pgid: number } | { kind: 'died' },
    ): void => {
      if (event.kind === 'pid') {
        pgid = event.pgid;
        this.runningGroup = pgid;
        if (stopAsked) void this.stopGroup(pgid);
        return;
      }
      if (event.kind === 'died') {
        died = !answered;
        emit(pending);
        pending = '';
        // Whatever the call started may outlive its shell; it is not left running.
        if (pgid !== undefined) void this.proc.killGroup(pgid);
        over();
        return;
      }
      pending += event.text;
      if (!answered) {
        const done = pending.indexOf(`\n${tags.done} `);
        if (done >= 0) {
          const status = controlLine(done + 1, tags.done);
          if (!status) return;
          // The marker line's own newline is the call's; the done line is not.
          emit(pending.slice(0, done + 1));
          code = Number(status[0]);
          pending = pending.slice(pending.indexOf('\n', done + 1) + 1);
          this.finishing = new Promise<void>((resolve) => (settle = resolve));
          answer();
          // A shell that does not report the end of an answered call is not waited for.
          endWait = setTimeout(() => {
            if (this.current !== listener) return;
            this.retire();
            over();
          }, 10_000).unref();
        }
      }
      const at = pending.indexOf(`\n${tags.end} `);
      if (at < 0) {
        // Hold back what could be the start of a control line.
        const keep = tags.done.length + 1;
        if (pending.length > keep) {
          emit(pending.slice(0, -keep));
          pending = pending.slice(-keep);
        }
        return;
      }
      emit(pending.slice(0, at));
      const status = controlLine(at + 1, tags.end);
      if (!status) {
        pending = pending.slice(at);
        return;
      }
      pending = '';
      code ??= Number(status[0]);
      // A stopped call's group is being killed (TERM, then KILL): what is left of it is on its way out.
      if (!stopAsked) this.afterCall(pgid, status[1] === '1');
      else this.idleSince = Date.now();
      over();
    };
    this.current = listener;
    this.lastRun = ++WarmShell.runs;
    this.proc.write(call.script);
    const run: ShellRun = {
      ended,
      exited: () => ended,
      exitStatus: async () => (died ? { code: code ?? 1, note: diedNote } : { code: code ?? 1 }),
      stop: () => {
        if (answered) return;
        stopAsked = true;
        // The call may be answered before its group is gone (stopReached): the next call waits a moment for
        // this shell, as for one finishing an answered call, rather than start another.
        if (this.current === listener) this.finishing = new Promise<void>((resolve) => (settle = resolve));
        if (pgid !== undefined) void this.stopGroup(pgid);
        else this.stopUnstarted(listener);
      },
      // The gentle signals are sent (or on their way over the link) once stop returns.
      stopReached: async () => undefined,
      detach: () => {
        detached = true;
      },
    };
    return run;
  }

  private static runs = 0;
  /** When this shell last took a call (a count of calls taken by all shells). */
  lastRun = 0;

  /** While an answered call's shell has not yet reported its end: resolves when it has (the shell is usable again). */
  finishing: Promise<void> | undefined;

  /** Kill a stopped call's group; a shell that has not reaped it a second later is retired and the call ends. */
  private async stopGroup(pgid: number): Promise<void> {
    const listener = this.current;
    await this.proc.killGroup(pgid);
    this.endIfStuck(listener, () => true);
  }

  /**
   * A stopped call whose subshell never said it started (it died before it read the call, or the shell no longer
   * answers): after a second the shell is retired and the call ends with the note that its shell did.
   */
  private stopUnstarted(listener: typeof this.current): void {
    this.endIfStuck(listener, () => this.runningGroup === undefined);
  }

  /** A second from now, if `listener`'s call is still running here and `still()`: retire the shell, end the call. */
  private endIfStuck(listener: typeof this.current, still: () => boolean): void {
    setTimeout(() => {
      if (this.current !== listener || listener === undefined || !still()) return;
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
