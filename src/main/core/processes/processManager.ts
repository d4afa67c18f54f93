// Background processes per runtime identity: start, poll, log, wait, kill, write; bounded output; finished ones kept a
// while.
import { randomBytes } from 'node:crypto';
import { SwitchboardError } from '../../../shared/errors.js';
import type { ProcessInfo } from '../../../shared/api.js';
import type { BackgroundHandle, Environment, TargetSnapshot } from '../backends/index.js';
import { RollingBuffer } from './rollingBuffer.js';
import { IdentityHolds } from '../sessions/index.js';
import { settleWithin, valueWithin, nullLog, type Log } from '../platform/index.js';

export interface ProcessManagerOptions {
  /** Output kept per process (the newest chars). */
  bufferChars?: number;
  /** How long a finished process stays listed. */
  finishedTtlMs?: number;
  /** Most finished processes kept; the oldest go first. */
  maxFinished?: number;
  /** Coalescing delay of processes.changed and process.output events. */
  eventDelayMs?: number;
  onChanged?: (list: ProcessInfo[]) => void;
  onOutput?: (sessionId: string, data: string) => void;
  /** Where a kill that failed is written (it is retried by nobody; the process may live on). */
  log?: Log;
  now?: () => number;
  /** Where a running process (and held work such as execute_code) holds its identity; the Core passes its own. */
  holds?: IdentityHolds;
}

/** Which processes a call may see: all (session_id alone), or one target's (by name, any generation). */
export interface ProcessScope {
  target?: string;
}

interface Entry {
  id: string;
  identity: string;
  target: string;
  generation: string;
  command: string;
  cwd: string;
  handle: BackgroundHandle;
  buffer: RollingBuffer;
  status: ProcessInfo['status'];
  exitCode: number | null;
  reason: string | undefined;
  startedAt: number;
  endedAt: number | undefined;
  killRequested: boolean;
  polled: number;
  exited: Promise<void>;
  markExited: () => void;
}

export interface PollResult {
  session_id: string;
  status: ProcessInfo['status'];
  exit_code: number | null;
  /** Output since the previous poll or wait. */
  output: string;
  reason?: string;
}

/** process log's answer; with a slice, in the fields read_output uses for a kept output. */
export interface ProcessLog {
  session_id: string;
  status: ProcessInfo['status'];
  exit_code: number | null;
  output: string;
  /** The whole output's length so far in chars (what was printed, kept or not). */
  total_chars: number;
  offset?: number;
  next_offset?: number;
  has_more?: boolean;
}

/** How many lines of a process's output a log shows when the caller names none. */
export const DEFAULT_LOG_LINES = 200;
export const BUFFER_CHARS = 200_000;
export const FINISHED_TTL_MS = 30 * 60_000;
export const MAX_FINISHED = 64;
/** After a kill, the longest `processes kill` waits for the process to end (its grace, and a moment for the link). */
const KILL_WAIT_MS = 5000;

export class ProcessManager {
  private readonly entries = new Map<string, Entry>();
  private readonly holds: IdentityHolds;
  private readonly opts: Required<Omit<ProcessManagerOptions, 'onChanged' | 'onOutput' | 'holds' | 'log'>> &
    Pick<ProcessManagerOptions, 'onChanged' | 'onOutput'>;
  private readonly faults: Log;
  private changedTimer: NodeJS.Timeout | undefined;
  private readonly pendingOutput = new Map<string, string>();
  private outputTimer: NodeJS.Timeout | undefined;
  private readonly pruneTimer: NodeJS.Timeout;

  constructor(opts: ProcessManagerOptions = {}) {
    this.opts = {
      bufferChars: opts.bufferChars ?? BUFFER_CHARS,
      finishedTtlMs: opts.finishedTtlMs ?? FINISHED_TTL_MS,
      maxFinished: opts.maxFinished ?? MAX_FINISHED,
      eventDelayMs: opts.eventDelayMs ?? 30,
      now: opts.now ?? Date.now,
      onChanged: opts.onChanged,
      onOutput: opts.onOutput,
    };
    this.holds = opts.holds ?? new IdentityHolds();
    this.faults = opts.log ?? nullLog;
    this.pruneTimer = setInterval(() => this.prune(), 60_000);
    this.pruneTimer.unref();
  }

  async start(snapshot: TargetSnapshot, env: Environment, command: string, cwd: string): Promise<ProcessInfo> {
    const handle = await env.spawnBackground(command, { cwd });
    let markExited!: () => void;
    const exited = new Promise<void>((resolve) => (markExited = resolve));
    const e: Entry = {
      id: `proc_${randomBytes(6).toString('hex')}`,
      identity: snapshot.identity,
      target: snapshot.name,
      generation: snapshot.generation,
      command,
      cwd,
      handle,
      buffer: new RollingBuffer(this.opts.bufferChars),
      status: 'running',
      exitCode: null,
      reason: undefined,
      startedAt: this.opts.now(),
      endedAt: undefined,
      killRequested: false,
      polled: 0,
      exited,
      markExited,
    };
    this.entries.set(e.id, e);
    const release = this.holds.acquire(e.identity);
    handle.onData((data) => {
      e.buffer.push(data);
      this.queueOutput(e.id, data);
    });
    handle.onExit((code, reason) => {
      if (e.status !== 'running') return;
      e.exitCode = code;
      e.reason = reason;
      e.endedAt = this.opts.now();
      e.status = e.killRequested ? 'killed' : code === null ? 'lost' : 'exited';
      this.flushOutput();
      e.markExited();
      release();
      this.prune();
      this.changed();
    });
    this.changed();
    return info(e);
  }

  /** Processes visible in a scope, newest first. */
  list(scope: ProcessScope = {}): ProcessInfo[] {
    this.prune();
    return [...this.entries.values()]
      .filter((e) => scope.target === undefined || e.target === scope.target)
      .sort((a, b) => b.startedAt - a.startedAt)
      .map(info);
  }

  /** One process; a session of another target than the scope's is refused. */
  info(id: string, scope: ProcessScope = {}): ProcessInfo {
    return info(this.find(id, scope));
  }

  poll(id: string, scope: ProcessScope = {}): PollResult {
    const e = this.find(id, scope);
    return this.advance(e);
  }

  /** The last `lines` lines of a process's output, or with `slice` the chars from its offset (as read_output). */
  log(id: string, lines = 200, scope: ProcessScope = {}, slice?: { offset: number; limit: number }): ProcessLog {
    const e = this.find(id, scope);
    const base = { session_id: e.id, status: e.status, exit_code: e.exitCode };
    const total = e.buffer.total;
    // The last lines: where they start is not an offset to page from (older output may be dropped already).
    if (!slice) return { ...base, output: e.buffer.tail(lines), total_chars: total };
    if (slice.offset > total)
      throw new SwitchboardError(
        'bad_request',
        `offset ${slice.offset} is past the end of process ${id}'s output (${total} chars so far)`,
        `read from an offset below ${total}`,
      );
    const output = e.buffer.slice(slice.offset, slice.limit);
    if (output === undefined)
      throw new SwitchboardError(
        'bad_request',
        `process ${id}'s output before char ${e.buffer.oldest} is no longer kept ` +
          `(a log keeps its last ${this.opts.bufferChars} chars)`,
        `read from offset ${e.buffer.oldest} on`,
      );
    const next = slice.offset + output.length;
    return {
      ...base,
      output,
      offset: slice.offset,
      total_chars: total,
      ...(next < total ? { next_offset: next } : {}),
      has_more: next < total,
    };
  }

  /** Wait for the process to end; on timeout the output so far comes back with timed_out. */
  async wait(
    id: string,
    timeoutMs: number,
    scope: ProcessScope = {},
    signal?: AbortSignal,
  ): Promise<PollResult & { timed_out: boolean }> {
    const e = this.find(id, scope);
    let onAbort: (() => void) | undefined;
    // A cancelled wait answers as one that ran out of time.
    const aborted = new Promise<boolean>((resolve) => {
      onAbort = () => resolve(true);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const timedOut = await valueWithin(Promise.race([e.exited.then(() => false), aborted]), timeoutMs, true);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    return { ...this.advance(e), timed_out: timedOut };
  }

  /** Kill the whole process group; resolves once it ended (or a few seconds passed). */
  async kill(id: string, scope: ProcessScope = {}): Promise<ProcessInfo> {
    const e = this.find(id, scope);
    if (e.status !== 'running') return info(e);
    e.killRequested = true;
    await e.handle.kill().catch((err: unknown) => this.faults.warn(`kill of ${e.id} (${e.identity}) failed`, err));
    await settleWithin(e.exited, KILL_WAIT_MS);
    return info(e);
  }

  write(id: string, data: string, scope: ProcessScope = {}): { session_id: string; bytes_written: number } {
    const e = this.find(id, scope);
    if (e.status !== 'running') {
      throw new SwitchboardError(
        'bad_request',
        `process ${id} has ${e.status === 'exited' ? 'exited' : `been ${e.status}`}; nothing to write to`,
      );
    }
    e.handle.write(data);
    return { session_id: e.id, bytes_written: Buffer.byteLength(data) };
  }

  /** True while an identity still runs background processes or other held work (execute_code). */
  busy(identity: string): boolean {
    if (this.holds.held(identity)) return true;
    for (const e of this.entries.values()) if (e.identity === identity && e.status === 'running') return true;
    return false;
  }

  /** Mark work on an identity that is not a listed process; call the returned function when it ends. */
  hold(identity: string): () => void {
    return this.holds.acquire(identity);
  }

  /** Kill everything still running (Core shutdown). */
  async shutdown(): Promise<void> {
    clearInterval(this.pruneTimer);
    if (this.changedTimer) clearTimeout(this.changedTimer);
    if (this.outputTimer) clearTimeout(this.outputTimer);
    await Promise.all(
      [...this.entries.values()]
        .filter((e) => e.status === 'running')
        .map((e) => {
          e.killRequested = true;
          return e.handle.kill().catch((err: unknown) => this.faults.warn(`kill of ${e.id} at shutdown failed`, err));
        }),
    );
  }

  private find(id: string, scope: ProcessScope): Entry {
    const e = this.entries.get(id);
    if (!e) {
      throw new SwitchboardError(
        'unknown_process',
        `no background process "${id}"`,
        'list them with the process tool, action list; finished ones are kept for 30 minutes',
      );
    }
    if (scope.target !== undefined && e.target !== scope.target) {
      throw new SwitchboardError(
        'not_permitted',
        `process ${id} runs on target "${e.target}", not "${scope.target}"`,
        `call it with execution_target "${e.target}", or without execution_target`,
      );
    }
    return e;
  }

  private advance(e: Entry): PollResult {
    const { text, lost } = e.buffer.since(e.polled);
    e.polled = e.buffer.total;
    const output =
      lost > 0
        ? `[… ${lost} chars dropped since the last poll (buffer keeps the last ${this.opts.bufferChars}) …]\n${text}`
        : text;
    return {
      session_id: e.id,
      status: e.status,
      exit_code: e.exitCode,
      output,
      ...(e.reason ? { reason: e.reason } : {}),
    };
  }

  /** Drop finished processes past their time, and the oldest beyond the cap. */
  private prune(): void {
    const now = this.opts.now();
    const finished = [...this.entries.values()]
      .filter((e) => e.status !== 'running')
      .sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
    let removed = false;
    for (let i = 0; i < finished.length; i++) {
      const e = finished[i]!;
      if (now - (e.endedAt ?? now) > this.opts.finishedTtlMs || finished.length - i > this.opts.maxFinished) {
        this.entries.delete(e.id);
        removed = true;
      }
    }
    if (removed) this.changed();
  }

  private changed(): void {
    if (!this.opts.onChanged) return;
    this.changedTimer ??= setTimeout(() => {
      this.changedTimer = undefined;
      this.opts.onChanged?.(this.list());
    }, this.opts.eventDelayMs);
  }

  private queueOutput(id: string, data: string): void {
    if (!this.opts.onOutput) return;
    const pending = (this.pendingOutput.get(id) ?? '') + data;
    this.pendingOutput.set(id, pending);
    // A flood goes out in events of a bounded size, so a slow reader's queue grows by at most one of them.
    if (pending.length >= OUTPUT_EVENT_CHARS) this.flushOutput();
    else this.outputTimer ??= setTimeout(() => this.flushOutput(), this.opts.eventDelayMs);
  }

  private flushOutput(): void {
    if (this.outputTimer) clearTimeout(this.outputTimer);
    this.outputTimer = undefined;
    const batch = [...this.pendingOutput];
    this.pendingOutput.clear();
    for (const [id, data] of batch) this.opts.onOutput?.(id, data);
  }
}

/** The most output one process.output event carries before it is sent without waiting for the delay. */
const OUTPUT_EVENT_CHARS = 256 * 1024;

function info(e: Entry): ProcessInfo {
  return {
    session_id: e.id,
    execution_target: e.target,
    generation: e.generation,
    command: e.command,
    cwd: e.cwd,
    status: e.status,
    exit_code: e.exitCode,
    ...(e.reason ? { reason: e.reason } : {}),
    started_at: new Date(e.startedAt).toISOString(),
    ended_at: e.endedAt === undefined ? null : new Date(e.endedAt).toISOString(),
    output_chars: e.buffer.total,
  };
}
