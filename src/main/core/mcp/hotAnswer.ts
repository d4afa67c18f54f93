// /mcp's own answer to the requests an initialized client sends over and over (hotRequest.ts): the tool is called as
// the SDK's Server would call it (answerCall), and the answer is written straight to the response, without a Server,
// its transport and the schemas they parse every message with. What the client sees is what the Server would send: the
// same JSON-RPC answer (result, or error with its code), a call's progress as an event stream started by its first
// notification, nothing for a call it cancelled (202, or the stream ended), and a call whose client goes away is
// aborted.
import { ErrorCode, type ProgressNotification, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { answerCall, mcpTools, type ToolCaller } from './mcpServer.js';
import { callToolResultJson, jsonBytes } from './callToolResultJson.js';
import type { HotRequest } from './hotRequest.js';
import type { Cancellable, RunningRequests } from './runningRequests.js';
import type { McpResponse } from './mcpResponse.js';

/** One message as a server-sent event (what the SDK's transport writes: no id, so nothing to resume). */
export function sseEvent(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/** A JSON answer (its text, or its pieces) in one write: with its length the client need not reassemble chunks. */
export function sendJson(res: McpResponse, json: string | readonly string[]): void {
  const body = typeof json === 'string' ? Buffer.from(json) : jsonBytes(json);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
}

/** A result answer as the SDK's Protocol writes it (`result`, `jsonrpc`, `id`, in that order), in pieces. */
const resultAnswer = (id: RequestId, result: string | readonly string[]): string[] => [
  '{"result":',
  ...(typeof result === 'string' ? [result] : result),
  `,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
];

/** An error answer as the SDK's Protocol writes it for a handler that threw. */
function errorAnswer(id: RequestId, err: unknown): string {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(e.code) ? e.code : ErrorCode.InternalError;
  const message = typeof e.message === 'string' ? e.message : 'Internal error';
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code, message, ...(e.data !== undefined && { data: e.data }) },
  });
}

/** The tool list's JSON, encoded on first use: it depends on the tool declarations only (mcpTools). */
let toolsJson: string | undefined;

export interface HotContext {
  callTool: ToolCaller;
  running: RunningRequests;
  /** The client's Mcp-Session-Id ('' without one): whose cancels reach this call. */
  clientId: string;
  /** Where a running call puts what ends it with an answer that says why (`text`) when the Core stops. */
  stops: Set<(text: string) => void>;
}

/** Answers `hot` on `res`; resolves once it is answered, cancelled or its client went away. */
export async function answerHot(hot: HotRequest, res: McpResponse, ctx: HotContext): Promise<void> {
  if (hot.method !== 'tools/call') {
    if (hot.method === 'ping') return sendJson(res, resultAnswer(hot.id, '{}'));
    toolsJson ??= JSON.stringify({ tools: mcpTools() });
    return sendJson(res, resultAnswer(hot.id, toolsJson));
  }
  const { id } = hot;
  const controller = new AbortController();
  let streaming = false;
  /** Answered, cancelled or abandoned: nothing more is written. */
  let over = false;
  const holder: Cancellable = {
    cancel: () => {
      if (over) return;
      over = true;
      ctx.running.settle(ctx.clientId, id, holder);
      controller.abort();
      // As the Server does for a cancelled request: no answer, so the POST has nothing to say.
      if (streaming) res.end();
      else if (!res.headersSent) res.writeHead(202).end();
    },
  };
  ctx.running.add(ctx.clientId, id, holder);
  // The Core stops: the call is ended, and answered with why (its client fails at once instead of waiting it out).
  const stop = (text: string): void => {
    if (over) return;
    over = true;
    ctx.running.settle(ctx.clientId, id, holder);
    controller.abort();
    const failed = resultAnswer(id, JSON.stringify({ content: [{ type: 'text', text }], isError: true }));
    if (streaming) res.end(sseEvent(failed.join('')));
    else sendJson(res, failed);
  };
  ctx.stops.add(stop);
  res.once('close', () => ctx.stops.delete(stop));
  // A client that goes away (dropped, or timed out and closed its socket) cancels what it asked, as a closed transport
  // aborts the Server's handlers: that kills the command and withdraws its approval.
  res.once('close', () => {
    ctx.running.settle(ctx.clientId, id, holder);
    if (over) return;
    over = true;
    controller.abort();
  });
  const notify = (notification: ProgressNotification): void => {
    if (over || res.destroyed) return;
    if (!streaming) {
      // The SDK's transport in its streaming mode: the same headers, each message one event.
      streaming = true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    }
    // In the order the SDK's Protocol writes a notification's keys.
    res.write(sseEvent(JSON.stringify({ ...notification, jsonrpc: '2.0' })));
  };
  let answer: string[];
  try {
    const a = await answerCall(ctx.callTool, hot.name, hot.args, controller.signal, hot.progressToken, notify);
    answer = resultAnswer(id, 'result' in a ? callToolResultJson(a.result) : JSON.stringify(a.failed));
  } catch (err) {
    answer = [errorAnswer(id, err)];
  }
  if (over) return;
  over = true;
  ctx.running.settle(ctx.clientId, id, holder);
  if (streaming) res.end(sseEvent(answer.join('')));
  else sendJson(res, answer);
}
