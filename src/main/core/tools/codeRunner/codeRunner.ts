// Runs an execute_code script on a target and answers its tool calls through the Core, pinned to the same identity.
//
// Transport: stdio framing over Environment.spawnBackground, the one primitive that gives streamed stdout and a
// stdin on every backend (local child, SSH channel, docker exec -i). No socket, no file polling, no port: what works
// for `terminal` in the background works here. A per-run random marker separates tool calls from the script's own
// output (see pythonBootstrap.ts for the protocol); replies go back as JSON lines on stdin.
import { randomBytes } from 'node:crypto';
import { toErrorPayload, errorLine } from '../../../../shared/errors.js';
import { MAX_REQUEST_BYTES } from '../../../../shared/limits.js';
import type { ToolResult } from '../../../../shared/tools.js';
import { type BackgroundHandle, type Environment, BoundedCapture, stopOnTimeoutOrAbort } from '../../backends/index.js';
import { bootstrapCommand, scriptTools } from './pythonBootstrap.js';
import type { ToolDef } from '../toolDef.js';
import { settleWithin, afterLargeRequest } from '../../platform/index.js';

export const DEFAULT_CODE_TIMEOUT_SEC = 300;
export const MAX_TOOL_CALLS = 50;
export const MAX_CODE_OUTPUT_CHARS = 50_000;
/** The longest tool call a script may send (its JSON line), as a client's request may be; longer ones end the run. */
export const MAX_FRAME_CHARS = MAX_REQUEST_BYTES;
/** How long a nested call may take to wind down after the run was stopped before the result is returned anyway. */
export const NESTED_GRACE_MS = 2_000;

export interface RunOptions {
  code: string;
  cwd: string;
  timeoutMs: number;
  /** The tools the script may call through switchboard_tools (those with a script form). */
  tools: readonly ToolDef[];
  /**
   * Dispatch a nested tool call (the caller pins it to the outer runtime identity). `signal` aborts when the run
   * ends (timeout, cancel, script exit, an oversized tool call): the call must stop what it started on the target.
   */
  call: (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>;
  signal?: AbortSignal;
  maxToolCalls?: number;
  maxOutputChars?: number;
  /** Receives what the script prints (its tool calls left out) as it arrives, whole however long. */
  onOutput?: (text: string) => void;
}

export interface RunResult {
  output: string;
  exit_code: number;
  tool_calls: number;
  truncated?: true;
  timed_out?: true;
  /** Why the run did not end normally: a limit, a missing python3, a lost channel. */
  error?: string;
}

interface Request {
  id: number;
  tool: string;
  args: Record<string, unknown>;
}

/**
 * Splits a stream into ordinary text and marker-framed requests. A marker may arrive split over chunks,
 * so a tail that could be the start of one is held back until the next chunk decides.
 *
 * Linear in the stream: ordinary text goes out as it comes (only a marker-length tail is held), and a frame's
 * chunks are kept in a list and searched for the newline one chunk at a time, never the whole frame again.
 * A frame longer than `maxFrameChars` calls `onOverflow` once and the splitter ignores the rest of the stream.
 */
export class FrameSplitter {
  /** Text after the last frame that may be the start of a marker (shorter than the marker). */
  private tail = '';
  /** The body of the frame being read (after its marker), or undefined between frames. */
  private frame: string[] | undefined;
  private frameChars = 0;
  private overflowed = false;

  constructor(
    private readonly marker: string,
    private readonly onText: (text: string) => void,
    private readonly onFrame: (json: string) => void,
    private readonly maxFrameChars = MAX_FRAME_CHARS,
    private readonly onOverflow: () => void = () => undefined,
  ) {}

  push(chunk: string): void {
    let rest = chunk;
    while (rest && !this.overflowed) {
      if (this.frame) {
        const end = rest.indexOf('\n');
        const body = end < 0 ? rest : rest.slice(0, end);
        this.frameChars += body.length;
        if (this.frameChars > this.maxFrameChars) {
          this.overflowed = true;
          this.frame = undefined;
          this.onOverflow();
          return;
        }
        this.frame.push(body);
        if (end < 0) return;
        const json = this.frame.join('');
        this.frame = undefined;
        this.frameChars = 0;
        this.onFrame(json);
        rest = rest.slice(end + 1);
        continue;
      }
      const text = this.tail + rest;
      this.tail = '';
      const at = text.indexOf(this.marker);
      if (at < 0) {
        const keep = partialMarkerLength(text, this.marker);
        if (text.length > keep) this.onText(text.slice(0, text.length - keep));
        this.tail = text.slice(text.length - keep);
        return;
      }
      if (at > 0) this.onText(text.slice(0, at));
      this.frame = [];
      this.frameChars = 0;
      rest = text.slice(at + this.marker.length);
    }
  }

  end(): void {
    if (this.overflowed) return;
    // An unfinished frame at the end of the stream was not a tool call: it is output.
    if (this.frame) this.onText(this.marker + this.frame.join(''));
    else if (this.tail) this.onText(this.tail);
    this.frame = undefined;
    this.tail = '';
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `marker`. */
function partialMarkerLength(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (marker.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}

export async function runCode(env: Environment, opts: RunOptions): Promise<RunResult> {
  const marker = `__SB_TOOL_${randomBytes(12).toString('hex')}__`;
  const maxCalls = opts.maxToolCalls ?? MAX_TOOL_CALLS;
  const capture = new BoundedCapture(opts.maxOutputChars ?? MAX_CODE_OUTPUT_CHARS);
  let calls = 0;
  let framed = false;
  let limitError: string | undefined;
  let frameError: string | undefined;
  let queue = Promise.resolve();
  // Aborted when the run ends for any reason; nested calls get this signal, so their commands stop with the script.
  const run = new AbortController();

  const handle: BackgroundHandle = await env.spawnBackground(bootstrapCommand(opts.tools), { cwd: opts.cwd });
  const stop = (): void => {
    run.abort();
    void handle.kill();
  };
  const reply = (msg: Record<string, unknown>): void => {
    try {
      handle.write(JSON.stringify(msg) + '\n');
    } catch {
      /* the script is gone; its exit ends the run */
    }
  };
  const answer = async (req: Request): Promise<void> => {
    if (run.signal.aborted) return reply({ id: req.id, ok: false, error: 'execute_code: the run has ended' });
    if (calls >= maxCalls) {
      limitError = `execute_code: the limit of ${maxCalls} tool calls per script was reached`;
      return reply({ id: req.id, ok: false, error: limitError });
    }
    calls++;
    if (!scriptTools(opts.tools).some((d) => d.name === req.tool)) {
      return reply({
        id: req.id,
        ok: false,
        error: `switchboard_tools has no tool "${req.tool}"; it offers ${scriptTools(opts.tools)
          .map((d) => d.name)
          .join(', ')}`,
      });
    }
    try {
      const result = await opts.call(req.tool, req.args ?? {}, run.signal);
      reply({ id: req.id, ok: true, result });
    } catch (err) {
      reply({ id: req.id, ok: false, error: errorLine(toErrorPayload(err)) });
    }
  };
  const splitter = new FrameSplitter(
    marker,
    (text) => {
      capture.push(text);
      opts.onOutput?.(text);
    },
    (json) => {
      framed = true;
      let req: Request;
      try {
        req = JSON.parse(json) as Request;
      } catch {
        // the script sent garbage: it gets the error as its answer
        reply({ id: 0, ok: false, error: 'malformed tool call' });
        return;
      }
      // One call at a time, in order: the script blocks on each reply anyway.
      const chars = json.length;
      queue = queue.then(() => answer(req)).finally(() => afterLargeRequest(chars));
    },
    MAX_FRAME_CHARS,
    () => {
      frameError = `execute_code: a tool call from the script is over ${MAX_FRAME_CHARS / 1024 / 1024} MiB`;
      stop();
    },
  );

  const exited = new Promise<{ code: number | null; reason?: string }>((resolve) => {
    handle.onExit((code, reason) => resolve({ code, reason }));
  });
  handle.onData((d) => splitter.push(d));
  handle.write(JSON.stringify({ marker, code: opts.code }) + '\n');

  let aborted = false;
  const guard = stopOnTimeoutOrAbort(opts.timeoutMs, opts.signal, (why) => {
    if (why === 'abort') aborted = true;
    stop();
  });
  const { code, reason } = await exited.finally(() => guard.dispose());
  const timedOut = guard.timedOut();
  splitter.end();
  // The script is gone: a call still in flight has nobody to answer, so it is stopped, and given a short grace.
  run.abort();
  await settleWithin(queue, NESTED_GRACE_MS);

  const { text, truncated } = capture.text();
  const result: RunResult = { output: text, exit_code: code ?? 1, tool_calls: calls };
  if (truncated) result.truncated = true;
  const fail = (msg: string): void => {
    result.error = msg;
    result.output = `${result.output}${result.output.endsWith('\n') || !result.output ? '' : '\n'}[${msg}]`;
  };
  if (timedOut) {
    result.timed_out = true;
    result.exit_code = 124;
    fail(`execute_code: the script ran longer than ${Math.round(opts.timeoutMs / 1000)} s and was killed`);
  } else if (aborted) {
    fail('execute_code: the call was cancelled and the script killed');
  } else if (frameError) {
    fail(frameError);
  } else if (code === 127 && !framed && /python3.*not found|not found.*python3|No such file/i.test(text)) {
    fail('execute_code: python3 is not installed on this target');
  } else if (code === null) {
    fail(`execute_code: the script's channel was lost${reason ? ` (${reason})` : ''}`);
  } else if (limitError) {
    result.error = limitError;
  }
  if (truncated && !result.error)
    result.error = `execute_code: output over ${capture.maxChars} chars; the middle was cut`;
  return result;
}
