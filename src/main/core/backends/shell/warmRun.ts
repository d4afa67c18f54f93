// One call in a warm shell (warmShell.ts), read from what the shell prints, as a small state machine:
//
//   running ──done line──▶ answered ──end line──▶ over
//      └────end line, the shell died, or it was given up on────▶ over
//
// running:  the call's output goes to its sink, held back only where it could be the start of a control line.
// answered: the done line gave the exit status and the caller has its answer; the shell is reaping the subshell.
// over:     the end line came (or the shell died, or was given up on); the shell may take its next call.
//
// The shell says two things on two pipes: the call's process group on stderr (the pid line, first), everything else
// on stdout (output, done line, end line). Nothing orders one pipe against the other where they are read: a loaded
// machine hands over the end line before the pid line now and then (measured: 10 in 50 runs of the retire test).
// So the end line names the group again, and a pid line is taken only by the call whose tag it carries.
import type { ShellRun } from './execWrapped.js';
import type { WarmCall } from './warmProgram.js';

/** What a warm shell hands the call it runs: output, a pid line (tag and group), or its own death. */
export type ShellEvent = { kind: 'out'; text: string } | { kind: 'pid'; tag: string; pgid: number } | { kind: 'died' };

/** What a call needs of the shell it runs in (WarmShell), so the two files do not import each other. */
export interface RunShell {
  /** End a call's process group gently (WarmProcess.killGroup). */
  killGroup(pgid: number): Promise<void>;
  /** Take no more calls; the shell ends once this one is over. */
  retire(): void;
  /**
   * The end line came: `left` is what the shell saw of the call in its group (`pgid`), undefined for a stopped call,
   * whose group is being killed anyway. Decides whether the shell is reused.
   */
  callEnded(pgid: number | undefined, left: boolean | undefined): void;
  /** The call lets go of the shell, which may take its next one. */
  release(run: WarmRun): void;
}

/** How long an answered call's shell may take to report the call's end before it is retired and not waited for. */
const END_LINE_WAIT_MS = 10_000;

/** How long a stopped call's shell may take to reap it (or say it started) before it is retired and the call ends. */
const STUCK_MS = 1000;

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
  /** The call's process group: from its pid line, or from its end line when that was read first. */
  private pgid: number | undefined;
  private stopAsked = false;
  private code: number | undefined;
  /** The shell died before the call was answered. */
  private died = false;
  /** The caller has its answer and reads no more of the output. */
  private detached = false;
  /** Gives up on the end line of an answered call; cleared once it came, so it does not keep the call's output. */
  private endWait: NodeJS.Timeout | undefined;
  /** Resolves `finishing`. */
  private settle: () => void = () => undefined;
  private resolveEnded: () => void = () => undefined;
  /** While the call is answered (or stopped) but not over: resolves once it is over (its shell is usable again). */
  finishing: Promise<void> | undefined;
  readonly ended = new Promise<void>((resolve) => (this.resolveEnded = resolve));

  constructor(
    private readonly shell: RunShell,
    private readonly tags: WarmCall['tags'],
    private readonly sink: (text: string) => void,
  ) {}

  /** The process group of the call, once the shell has said it. */
  get group(): number | undefined {
    return this.pgid;
  }

  /** What the shell printed or did; nothing reaches a call that is over (the shell has let it go by then). */
  on(event: ShellEvent): void {
    if (event.kind === 'pid') return this.started(event.tag, event.pgid);
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
    this.finishing = new Promise<void>((resolve) => (this.settle = resolve));
    if (this.pgid !== undefined) void this.stopGroup(this.pgid);
    // A subshell that never said it started died before it read the call, or the shell no longer answers.
    else this.overIfStuck(() => this.pgid === undefined);
  }

  /** The gentle signals are sent (or on their way over the link) once stop returns. */
  async stopReached(): Promise<void> {
    return undefined;
  }

  /**
   * The caller answers now. A stopped call is answered without waiting for its end line when that is slow (a loaded
   * machine, a container's kill on its way): what it printed and was only held back because a control line could
   * start there is handed on first, all but such a start.
   */
  detach(): void {
    this.emit(this.pending.slice(0, this.controlLineStart()));
    this.detached = true;
  }

  /** Where a control line may begin at the end of `pending` (a newline and part of a tag), else its length. */
  private controlLineStart(): number {
    const nl = this.pending.lastIndexOf('\n');
    const rest = this.pending.slice(nl + 1);
    const partOfTag = (tag: string): boolean => `${tag} `.startsWith(rest);
    return nl >= 0 && rest !== '' && (partOfTag(this.tags.done) || partOfTag(this.tags.end)) ? nl : this.pending.length;
  }

  /**
   * The subshell said its process group; a call stopped before that is stopped now. A pid line with another call's
   * tag is the last call's, read after its end line: that group is not this call's to stop or to look at.
   */
  private started(tag: string, pgid: number): void {
    if (tag !== this.tags.pid || this.state === 'over') return;
    this.pgid = pgid;
    if (this.stopAsked) void this.stopGroup(pgid);
  }

  /** Kill a stopped call's group; a shell that has not reaped it STUCK_MS later is retired and the call ends. */
  private async stopGroup(pgid: number): Promise<void> {
    await this.shell.killGroup(pgid);
    this.overIfStuck(() => true);
  }

  /** STUCK_MS from now, if the call is not over and `still()`: the shell is retired, the call ends as if it died. */
  private overIfStuck(still: () => boolean): void {
    setTimeout(() => {
      if (this.state === 'over' || !still()) return;
      this.shell.retire();
      this.shellDied();
    }, STUCK_MS).unref();
  }

  /** The shell ended under the call: what it printed is handed on, and what it started is not left running. */
  private shellDied(): void {
    if (this.state === 'over') return;
    this.died = this.state === 'running';
    this.emit(this.pending);
    this.pending = '';
    if (this.pgid !== undefined) void this.shell.killGroup(this.pgid);
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
    this.finishing = new Promise<void>((resolve) => (this.settle = resolve));
    this.answer();
    // A shell that does not report the end of an answered call is not waited for.
    this.endWait = setTimeout(() => {
      if (this.state === 'over') return;
      this.shell.retire();
      this.over();
    }, END_LINE_WAIT_MS).unref();
    return true;
  }

  /**
   * Looks for the end line (`<status> <left running> <group>`: the subshell reaped) and ends the call at it. The
   * group is taken from it when the pid line has not been read yet: then the pid line is still on its way, and
   * without the group the shell would not look at what the call left (it would be reused with a job still in it,
   * and the late pid line would go to the next call).
   */
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
    if (this.pgid === undefined && status[2]) this.pgid = Number(status[2]);
    // A stopped call's group is being killed (TERM, then KILL): what is left of it is on its way out.
    this.shell.callEnded(this.pgid, this.stopAsked ? undefined : status[1] === '1');
    this.over();
  }

  /** The fields of a control line that starts at `at` in `pending` (`<tag> <field>…\n`), once it is whole. */
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
    this.resolveEnded();
  }

  /** The call lets go of its shell, which may take the next call. */
  private over(): void {
    clearTimeout(this.endWait);
    if (this.state === 'over') return;
    this.shell.release(this);
    this.answer();
    this.state = 'over';
    this.settle();
  }
}
