// The one exec skeleton every shell backend runs a command through: wrap, capture, timeout → 124, cap, parse cwd.
import { SwitchboardError } from '../../../../shared/errors.js';
import type { ExecOptions, ExecResult } from '../provider.js';
import { BoundedCapture } from './boundedCapture.js';
import { keptInMemoryNote, type SecretExports } from './secretExports.js';
import { markerLineSeen, parseWrapped, wrapCommand, type WrapOptions, type Wrapped } from './shellWrap.js';

/** One wrapped script running on a target, as its backend started it. */
export interface ShellRun {
  /**
   * Resolves when the output has ended (every holder of the streams let go, or the backend gave up on them after
   * `stop`); rejects when the link to the target is lost before the command finished.
   */
  readonly ended: Promise<void>;
  /** Resolves once the shell itself has exited, even while a background child (`cmd &`) still holds its output. */
  exited(): Promise<void>;
  /** The shell's exit status, asked once it exited or its output ended; a note says why when there is none. */
  /** `timedOut`: the backend ended the command at its own deadline (a plugin runs timeout_ms itself). */
  exitStatus(): Promise<{ code: number; note?: string; timedOut?: boolean }>;
  /** Stop the command's process group (timeout, cancel); `ended` must then resolve soon, whatever the target does. */
  stop(): void;
  /**
   * The call is over: hand the sink what is still held back, then let go; output still arriving (a background
   * child's) is no longer the call's.
   */
  detach(): void;
  /**
   * Once `stop` was called: resolves when the stop has reached the command (its gentle signals are sent), rejects
   * when it cannot (an engine that did not take the kill, which the call must say). A stopped call is then answered
   * STOP_ANSWER_MS later at the latest, while the command's ending (the grace before its SIGKILL,
   * processes/endGently.ts) goes on. Without it the call waits for `ended`.
   */
  stopReached?(): Promise<void>;
}

/**
 * How long a stopped call waits for its command to end before it is answered anyway: a command that dies at its
 * SIGHUP is gone by then (its output complete), one that traps it is still given its grace, but not the caller's time.
 */
export const STOP_ANSWER_MS = 300;

export interface ExecWrappedOptions extends ExecOptions {
  /** The file that keeps the identity's exported variables (see wrapCommand). */
  envFile?: string;
  /** Keep exports that look like credentials here, not in the env file (see secretExports.ts). */
  secrets?: SecretExports;
  /** How the command is wrapped; wrapCommand (a script for `sh -c`) unless the backend feeds a warm shell. */
  wrap?: (command: string, opts: WrapOptions) => Wrapped;
}

/**
 * Hands on what the command printed, without what the wrapper adds after it: everything from the first "\n<marker>"
 * on (the secret frames, the marker line) is the Core's, never the caller's. Text that might be the start of that is
 * held back until the next chunk shows what it is.
 */
export class CommandOutputTee {
  private held = '';
  private done = false;
  private readonly stop: string;

  constructor(
    marker: string,
    private readonly out: (text: string) => void,
  ) {
    this.stop = `\n${marker}`;
  }

  push(text: string): void {
    if (this.done) return;
    const t = this.held + text;
    const at = t.indexOf(this.stop);
    if (at >= 0) {
      this.done = true;
      this.held = '';
      if (at > 0) this.out(t.slice(0, at));
      return;
    }
    // Keep back the longest end of `t` that could begin the stop string.
    let keep = Math.min(t.length, this.stop.length - 1);
    while (keep > 0 && !this.stop.startsWith(t.slice(t.length - keep))) keep--;
    this.held = t.slice(t.length - keep);
    if (t.length > keep) this.out(t.slice(0, t.length - keep));
  }

  /** The output ended without the wrapper's lines (a timeout, a lost link): what was held back was output. */
  end(): void {
    if (!this.done && this.held) this.out(this.held);
    this.done = true;
    this.held = '';
  }
}

/** What a timeout adds to the output, on every backend. */
export function timeoutNote(timeoutMs: number): string {
  return `[timed out after ${Math.round(timeoutMs / 1000)}s]`;
}

/**
 * Calls `stop` when the timeout passes or the signal aborts; `dispose` disarms both. Shared by command runs and
 * the code runner so a timeout and a cancel end work the same way everywhere.
 */
export function stopOnTimeoutOrAbort(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  stop: (why: 'timeout' | 'abort') => void,
): { timedOut(): boolean; dispose(): void } {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop('timeout');
  }, timeoutMs);
  const onAbort = (): void => stop('abort');
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) queueMicrotask(onAbort);
  return {
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Run `command` in the target's shell through `start`, which launches the wrapped script and feeds its output
 * (stdout and stderr alike) to the sink. The call ends when the shell has printed its marker line and exited —
 * not when every pipe closes, so `cmd &` does not hold it — or when the output ends, or on timeout or cancel.
 * A `cwdMustExist` directory that is missing fails with bad_request and nothing runs.
 */
export async function execWrapped(
  command: string,
  opts: ExecWrappedOptions,
  start: (script: string, sink: (text: string) => void) => Promise<ShellRun>,
): Promise<ExecResult> {
  const { script, marker } = (opts.wrap ?? wrapCommand)(command, {
    cwd: opts.cwd,
    ...(opts.envFile !== undefined ? { envFile: opts.envFile } : {}),
    ...(opts.cwdMustExist ? { cwdMustExist: true } : {}),
    ...(opts.secrets ? { secretsInMemory: true } : {}),
  });
  const capture = new BoundedCapture(opts.maxOutputChars);
  const tee = opts.onOutput ? new CommandOutputTee(marker, opts.onOutput) : undefined;
  // The last stretch of output, where the marker line appears (a cwd is at most PATH_MAX long).
  let recent = '';
  let detached = false;
  let markerSeen: () => void = () => undefined;
  const shellDone = new Promise<void>((resolve) => (markerSeen = resolve));
  const sink = (text: string): void => {
    if (detached) return;
    capture.push(text);
    tee?.push(text);
    recent = (recent + text).slice(-(marker.length + 8192));
    if (markerLineSeen(recent, marker)) markerSeen();
  };

  // A caller that gave up before the command started (a cancel racing an approval) gets nothing run: killing it a
  // moment after its start could come after a fast command did its work.
  if (opts.signal?.aborted)
    throw new SwitchboardError(
      'cancelled',
      'the call was cancelled by its caller before its command started; nothing ran',
    );
  const run = await start(script, sink);
  let answerStopped: (reached: Promise<void>) => void = () => undefined;
  const stopAnswered = new Promise<void>((resolve) => (answerStopped = resolve));
  const guard = stopOnTimeoutOrAbort(opts.timeoutMs, opts.signal, () => {
    run.stop();
    const reached = run.stopReached?.();
    if (reached)
      answerStopped(reached.then(() => new Promise<void>((resolve) => setTimeout(resolve, STOP_ANSWER_MS).unref())));
  });
  try {
    // A backend's `ended` rejects only for a failure worth more than a timeout note (a lost link, a frozen engine).
    await Promise.race([run.ended, shellDone.then(() => run.exited()), stopAnswered]);
  } finally {
    guard.dispose();
    run.detach();
    detached = true;
    tee?.end();
  }

  const { text, truncated } = capture.text();
  const parsed = parseWrapped(text, marker);
  const kept = opts.secrets?.apply(parsed.secrets) ?? [];
  if (kept.length) parsed.output = `${parsed.output.replace(/\n?$/, '\n')}${keptInMemoryNote(kept)}`;
  // The Core's deadline, or the backend's own one answering a moment before it (the two race at the same time).
  const backendTimedOut = guard.timedOut() ? false : (await run.exitStatus()).timedOut === true;
  if (guard.timedOut() || backendTimedOut) {
    return {
      output: `${parsed.output}\n${timeoutNote(opts.timeoutMs)}`,
      exitCode: 124,
      cwd: opts.cwd,
      timedOut: true,
      truncated,
    };
  }
  if (parsed.missingCwd) {
    throw new SwitchboardError(
      'bad_request',
      `workdir ${opts.cwd} does not exist`,
      'check the path; nothing ran and the cwd is unchanged',
    );
  }
  const status = await run.exitStatus();
  const output = status.note ? `${parsed.output}\n[${status.note}]` : parsed.output;
  return { output, exitCode: status.code, cwd: parsed.cwd ?? opts.cwd, timedOut: false, truncated };
}
