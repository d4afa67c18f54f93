// One call in a warm shell (warmShell.ts), read from the shell's output as a small state machine.
//
//   running ──done line──▶ answered ──end line──▶ over
//      └──────────end line, shell died, given up on────▶ over
//
// `running`: the call's output goes to its sink, held back only where it could be the start of a control line.
// `answered`: the done line gave the exit status and the caller has its answer; the shell is reaping the subshell.
// `over`: the end line came (or the shell died, or it was given up on); the shell may take its next call.
import type { ShellRun } from './execWrapped.js';
import type { WarmCall } from './warmProgram.js';
import type { WarmShell } from './warmShell.js';

/** What a warm shell hands the call it runs: output, the subshell's process group, or its own death. */
export type ShellEvent = { kind: 'out'; text: string } | { kind: 'pid'; pgid: number } | { kind: 'died' };

/** How long an answered call's shell may take to report the call's end before it is retired and not waited for. */
const END_LINE_WAIT_MS = 10_000;

/** What the shell of an interrupted call ended with; the call's output says it. */
const diedNote = 'the warm shell running this call ended; the next call gets a new one';

/**
 * A call is answered at its done line (the exit status its EXIT trap printed after the marker line); the shell takes
 * its next call only after the end line, once it has reaped the subshell and looked for what it left running. A call
 * whose trap did not run (its subshell was killed, or `exec` replaced it) is answered at the end line.
 */
export class WarmRun implements ShellRun {
  private state: 'running' | 'answered' | 'over' = 'running';
  /** Output not yet handed on: it may hold the start of a control line. */
  private pending = '';
  /** The call's process group, once its subshell said it. */
  private pgid: number | undefined;
  private stopAsked = false;
  private code: number | undefined;
  /** The shell died before the call was answered. */
  private died = false;
  /** The caller has its answer and reads no more of the output. */
  private detached = false;
  /** Gives up on the end line of an answered call; cleared once it came, so it does not keep the call's output. */
  private endWait: NodeJS.Timeout | undefined;
  /** Resolves the shell's `finishing` (set while an answered or stopped call is not yet over). */
  private settle: () => void = () => undefined;
  private answered: () => void = () => undefined;
  readonly ended = new Promise<void>((resolve) => (this.answered = resolve));

  constructor(
    private readonly shell: WarmShell,
    private readonly tags: WarmCall['tags'],
    private readonly sink: (text: string) => void,
  ) {}

  /** The shell's event for this call. */
  on(event: ShellEvent): void {
    if (event.kind === 'pid') return this.started(event.pgid);
    if (event.kind === 'died') return this.shellDied();
    this.pending += event.text;
    if (this.state === 'running' && !this.readDoneLine()) return;
    this.readEndLine();
  }

  exited(): Promise<void> {
    return this.ended;
  }

  async exitStatus(): Promise<{ code: number; note?: string }> {
    return this.died ? { code: this.code ?? 1, note: diedNote } : { code: this.code ?? 1 };
  }

  stop(): void {
    if (this.state !== 'running') return;
    this.stopAsked = true;
    // The call may be answered before its group is gone (stopReached): the next call waits a moment for this shell,
    // as for one finishing an answered call, rather than start another.
    if (this.shell.current === this) this.shell.finishing = new Promise<void>((resolve) => (this.settle = resolve));
    if (this.pgid !== undefined) void this.shell.stopGroup(this.pgid);
    else this.shell.stopUnstarted(this);
  }

  /** The gentle signals are sent (or on their way over the link) once stop returns. */
  async stopReached(): Promise<void> {}

  detach(): void {
    this.detached = true;
  }

  /** The subshell said its process group; a call stopped before that is stopped now. */
  private started(pgid: number): void {
    this.pgid = pgid;
    this.shell.runningGroup = pgid;
    if (this.stopAsked) void this.shell.stopGroup(pgid);
  }

  /** The shell ended under the call: what it printed is handed on, and what it started is not left running. */
  private shellDied(): void {
    this.died = this.state === 'running';
    this.emit(this.pending);
    this.pending = '';
    if (this.pgid !== undefined) void this.shell.proc.killGroup(this.pgid);
    this.over();
  }

  /** Looks for the done line and answers the call at it; false while it has come only in part. */
  private readDoneLine(): boolean {
    const done = this.pending.indexOf(`\n${this.tags.done} `);
    if (done < 0) return true;
    const status = this.controlLine(done + 1, this.tags.done);
    if (!status) return false;
    // The marker line's own newline is the call's; the done line is not.
    this.emit(this.pending.slice(0, done + 1));
    this.code = Number(status[0]);
    this.pending = this.pending.slice(this.pending.indexOf('\n', done + 1) + 1);
    this.shell.finishing = new Promise<void>((resolve) => (this.settle = resolve));
    this.answer();
    // A shell that does not report the end of an answered call is not waited for.
    this.endWait = setTimeout(() => {
      if (this.shell.current !== this) return;
      this.shell.retire();
      this.over();
    }, END_LINE_WAIT_MS).unref();
    return true;
  }

  /** Looks for the end line (the subshell reaped, `<status> <left running>`) and ends the call at it. */
  private readEndLine(): void {
    const at = this.pending.indexOf(`\n${this.tags.end} `);
    if (at < 0) {
      // Hold back what could be the start of a control line.
      const keep = this.tags.done.length + 1;
      if (this.pending.length > keep) {
        this.emit(this.pending.slice(0, -keep));
        this.pending = this.pending.slice(-keep);
      }
      return;
    }
    this.emit(this.pending.slice(0, at));
    const status = this.controlLine(at + 1, this.tags.end);
    if (!status) {
      this.pending = this.pending.slice(at);
      return;
    }
    this.pending = '';
    this.code ??= Number(status[0]);
    // A stopped call's group is being killed (TERM, then KILL): what is left of it is on its way out.
    if (!this.stopAsked) this.shell.afterCall(this.pgid, status[1] === '1');
    else this.shell.idleSince = Date.now();
    this.over();
  }

  /** The fields of a control line that starts at `at` in `pending` (`<tag> <status>…\n`), once it is whole. */
  private controlLine(at: number, tag: string): string[] | undefined {
    const eol = this.pending.indexOf('\n', at);
    return eol < 0 ? undefined : this.pending.slice(at + tag.length + 1, eol).split(' ');
  }

  private emit(text: string): void {
    if (!this.detached && this.state === 'running' && text) this.sink(text);
  }

  private answer(): void {
    if (this.state !== 'running') return;
    this.state = 'answered';
    this.answered();
  }

  /** The call lets go of its shell, which may take the next call. */
  private over(): void {
    clearTimeout(this.endWait);
    if (this.shell.current !== this) return;
    this.shell.current = undefined;
    this.shell.runningGroup = undefined;
    this.shell.finishing = undefined;
    this.answer();
    this.state = 'over';
    this.settle();
  }
}
