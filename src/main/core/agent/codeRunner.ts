// Runs an execute_code script on a target and answers its tool calls through the Core, pinned to the same identity.
//
// Transport: stdio framing over Environment.spawnBackground, the one primitive that gives streamed stdout and a
// stdin on every backend (local child, SSH channel, docker exec -i). No socket, no file polling, no port: what works
// for `terminal` in the background works here. A per-run random marker separates tool calls from the script's own
// output (see pythonBootstrap.ts for the protocol); replies go back as JSON lines on stdin.
import { randomBytes } from 'node:crypto';
import { toErrorPayload, errorLine } from '../../../shared/errors.js';
import type { ToolResult } from '../../../shared/tools.js';
import type { BackgroundHandle, Environment } from '../backends/provider.js';
import { BoundedCapture } from '../sessions/boundedCapture.js';
import { bootstrapCommand, scriptTools } from './pythonBootstrap.js';

export const DEFAULT_CODE_TIMEOUT_SEC = 300;
export const MAX_TOOL_CALLS = 50;
export const MAX_CODE_OUTPUT_CHARS = 50_000;

export interface RunOptions {
  code: string;
  cwd: string;
  timeoutMs: number;
  /** Dispatch a nested tool call (the caller pins it to the outer runtime identity). */
  call: (tool: string, args: Record<string, unknown>) => Promise<ToolResult>;
  signal?: AbortSignal;
  maxToolCalls?: number;
  maxOutputChars?: number;
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
 */
export class FrameSplitter {
  private buf = '';
  constructor(
    private readonly marker: string,
    private readonly onText: (text: string) => void,
    private readonly onFrame: (json: string) => void,
  ) {}

  push(chunk: string): void {
    this.buf += chunk;
    for (;;) {
      const at = this.buf.indexOf(this.marker);
      if (at < 0) break;
      const end = this.buf.indexOf('\n', at + this.marker.length);
      if (at > 0) this.onText(this.buf.slice(0, at));
      if (end < 0) {
        this.buf = this.buf.slice(at);
        return;
      }
      this.onFrame(this.buf.slice(at + this.marker.length, end));
      this.buf = this.buf.slice(end + 1);
    }
    const keep = partialMarkerLength(this.buf, this.marker);
    if (this.buf.length > keep) this.onText(this.buf.slice(0, this.buf.length - keep));
    this.buf = this.buf.slice(this.buf.length - keep);
  }

  end(): void {
    if (this.buf) this.onText(this.buf);
    this.buf = '';
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
  let queue = Promise.resolve();

  const handle: BackgroundHandle = await env.spawnBackground(bootstrapCommand(), { cwd: opts.cwd });
  const reply = (msg: Record<string, unknown>): void => {
    try {
      handle.write(JSON.stringify(msg) + '\n');
    } catch {
      /* the script is gone; its exit ends the run */
    }
  };
  const answer = async (req: Request): Promise<void> => {
    if (calls >= maxCalls) {
      limitError = `execute_code: the limit of ${maxCalls} tool calls per script was reached`;
      return reply({ id: req.id, ok: false, error: limitError });
    }
    calls++;
    if (!(scriptTools as readonly string[]).includes(req.tool)) {
      return reply({ id: req.id, ok: false, error: `switchboard_tools has no tool "${req.tool}"; it offers ${scriptTools.join(', ')}` });
    }
    try {
      const result = await opts.call(req.tool, req.args ?? {});
      reply({ id: req.id, ok: true, result });
    } catch (err) {
      reply({ id: req.id, ok: false, error: errorLine(toErrorPayload(err)) });
    }
  };
  const splitter = new FrameSplitter(
    marker,
    (text) => capture.push(text),
    (json) => {
      framed = true;
      let req: Request;
      try {
        req = JSON.parse(json) as Request;
      } catch {
        reply({ id: 0, ok: false, error: 'malformed tool call' });
        return;
      }
      // One call at a time, in order: the script blocks on each reply anyway.
      queue = queue.then(() => answer(req));
    },
  );

  const exited = new Promise<{ code: number | null; reason?: string }>((resolve) => {
    handle.onExit((code, reason) => resolve({ code, reason }));
  });
  handle.onData((d) => splitter.push(d));
  handle.write(JSON.stringify({ marker, code: opts.code }) + '\n');

  let timedOut = false;
  let aborted = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void handle.kill();
  }, opts.timeoutMs);
  const onAbort = (): void => {
    aborted = true;
    void handle.kill();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const { code, reason } = await exited.finally(() => {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  });
  splitter.end();
  await queue;

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
  } else if (code === 127 && !framed && /python3.*not found|not found.*python3|No such file/i.test(text)) {
    fail('execute_code: python3 is not installed on this target');
  } else if (code === null) {
    fail(`execute_code: the script's channel was lost${reason ? ` (${reason})` : ''}`);
  } else if (limitError) {
    result.error = limitError;
  }
  if (truncated && !result.error) result.error = `execute_code: output over ${capture.maxChars} chars; the middle was cut`;
  return result;
}
