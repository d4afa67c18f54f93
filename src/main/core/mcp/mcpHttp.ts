// MCP over Streamable HTTP at /mcp on the Core's loopback server (token, Host and Origin are checked before this runs).
//
// Stateless: each POST gets its own Server and a transport that lives for that POST only, so there is no session table
// to leak or hijack and a Core restart loses nothing a client holds. A POST is answered as JSON, unless a call of it
// sends progress first (it waits for a person, or runs long, and its client gave a progressToken): that POST is
// answered as an event stream, as the SDK's transport would, so the client hears it is still being worked on. The one
// table kept is of requests still running, so that a client's notifications/cancelled, which comes in a POST of its
// own, reaches the Server of the POST that asked, as it would over stdio: the call is aborted (its command killed, its
// pending approval withdrawn) and that POST is answered without it. A POST whose connection closes before its answer
// (the client timed out or went away) aborts its calls. The HTTP side is written against node:http directly: the SDK's
// transport goes through web-standard Request and Response objects and streams, which cost an agent's call more than
// the rest of the Core's work on it. What a client can observe is the SDK transport's behaviour: the same status codes,
// JSON-RPC errors and checks (Accept, Content-Type, body size, protocol version), JSON for short calls and events for a
// call that sends progress. A POST of one plain tools/call, tools/list or ping, what a working client sends most, is
// answered the same way without a Server at all (hotRequest.ts, hotAnswer.ts): building one per POST and passing each
// message through its schemas was most of what a call over HTTP cost the Core beyond the same call over WebSocket.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CancelledNotificationSchema,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_FILE_CONTENT_CHARS, MAX_REQUEST_BYTES, mib } from '../../../shared/limits.js';
import { createMcpServer, type ToolCaller } from './mcpServer.js';
import { hotRequest } from './hotRequest.js';
import { answerHot, sendJson, sseEvent } from './hotAnswer.js';
import { RunningRequests, type Cancellable } from './runningRequests.js';
import { jsonError, type McpClient, type McpResponse } from './mcpResponse.js';
import { invalidRequest, messageProblem, afterLargeRequest } from '../platform/index.js';

/** The most messages one POST may carry (as the SDK's transport allows). */
const MAX_BATCH = 100;

/** The /mcp route's handler, and what ends the requests still running when the Core stops. */
export interface McpHttp {
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /**
   * The Core stops: each request still running is ended (its call aborted: its command killed, its approval
   * withdrawn) and answered with why, so its client fails at once, whether its answer was JSON to come or an event
   * stream of progress already, rather than waiting out its own timeout.
   */
  close: () => Promise<void>;
}

/** What a request still running is answered with when the Core stops. */
export const STOPPED_TEXT =
  'no_core: the Core stopped while this call ran, and ended it — start the Core again (`switchboard serve` or the ' +
  'app) and repeat the call if it is still needed';

/** Where one POST's messages go: one JSON body, or an event stream once the Server has something to say first. */
interface PostSink {
  /**
   * A notification of the Server's (progress) while a request runs: the answer becomes an event stream, which starts
   * with the `earlier` answers of the same POST (a batch whose other calls were quicker).
   */
  notify(message: JSONRPCMessage, earlier: readonly JSONRPCMessage[]): void;
  /** An answer to one request; written at once when the POST streams, else kept for `done`. */
  answer(message: JSONRPCMessage): void;
  /** Every request was answered or cancelled: `answers` are those not cancelled, in the order they were asked. */
  done(answers: JSONRPCMessage[]): void;
}

/**
 * The transport of one POST: the Server's answers to its requests are collected, then sent as one JSON body, without
 * the requests the client cancelled (the Server answers those with nothing, as MCP asks). A call that sends progress
 * turns the answer into an event stream, its notifications and answers as events, ended after the last answer.
 */
class OnePostTransport implements Transport, Cancellable {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly answers = new Map<RequestId, JSONRPCMessage>();
  private readonly cancelled = new Set<RequestId>();
  private closed = false;
  private finished = false;

  /** `settled`: a request of this POST was answered or cancelled (it leaves the table of running requests). */
  constructor(
    readonly requests: ReadonlyArray<{ id: RequestId; method: string }>,
    private readonly sink: PostSink,
    private readonly settled: (id: RequestId) => void,
  ) {}

  async start(): Promise<void> {
    // Nothing to start: the HTTP server that owns this transport is already listening.
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.finished) return;
    // Told apart by their keys, not the SDK's schemas: a schema's parse walks the whole result (a call's output too),
    // and what our own Server sends needs no checking.
    if (!('result' in message || 'error' in message) || message.id === undefined) {
      // Only the Server's notifications (a call's progress) go out; it sends this POST no requests of its own.
      if (!('id' in message)) this.sink.notify(message, [...this.answers.values()]);
      return;
    }
    if (this.cancelled.has(message.id)) return;
    this.answers.set(message.id, message);
    this.settled(message.id);
    this.sink.answer(message);
    this.answerWhenDone();
  }

  /** The client cancelled request `id` (in this POST or another): its Server aborts the handler, as over stdio. */
  cancel(id: RequestId, notification: JSONRPCMessage): void {
    if (this.closed || this.answers.has(id) || this.cancelled.has(id)) return;
    this.cancelled.add(id);
    this.settled(id);
    this.onmessage?.(notification);
    this.answerWhenDone();
  }

  private answerWhenDone(): void {
    if (!this.requests.every(({ id }) => this.answers.has(id) || this.cancelled.has(id))) return;
    this.finished = true;
    this.sink.done(this.requests.flatMap(({ id }) => (this.answers.has(id) ? [this.answers.get(id)!] : [])));
  }

  /** The Core stops: each request not yet answered is answered with `text` (a tool error for a call), then closed. */
  async stop(text: string): Promise<void> {
    for (const { id, method } of this.requests) {
      if (this.answers.has(id) || this.cancelled.has(id)) continue;
      await this.send(
        method === 'tools/call'
          ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
          : { jsonrpc: '2.0', id, error: { code: -32000, message: text } },
      );
    }
    // Its Server aborts what its handlers still run: their commands are killed, their approvals withdrawn.
    await this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/**
 * The body as text, or undefined (after answering 413) when it is larger than the limit. The rest of a body that is
 * too large is read and dropped, so the client, still sending, gets the answer rather than a reset connection.
 */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
      // Far past the limit it is not a mistake worth reading to the end.
      else if (size > 4 * MAX_REQUEST_BYTES) req.destroy();
    });
    req.once('end', () => {
      if (size <= MAX_REQUEST_BYTES) return resolve(Buffer.concat(chunks).toString('utf8'));
      jsonError(
        res,
        413,
        -32000,
        `Payload Too Large: the body is over the ${mib(MAX_REQUEST_BYTES)} a request may be; ` +
          `write a large file in parts of at most ${mib(MAX_FILE_CONTENT_CHARS)}, ` +
          `and put a long command in a file`,
      );
      resolve(undefined);
    });
    req.once('error', reject);
    // Destroyed (or the client went away) before the end: there is no one to answer.
    req.once('close', () => resolve(undefined));
  });
}

/** A POST's body, parsed as JSON (`raw`), or undefined once it was answered with the error that says what is wrong. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<{ raw: unknown } | undefined> {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    jsonError(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    return undefined;
  }
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
    jsonError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    return undefined;
  }
  const text = await readBody(req, res);
  if (text === undefined) return undefined;
  try {
    return { raw: JSON.parse(text) };
  } catch {
    // not JSON: the client gets the JSON-RPC parse error
    jsonError(res, 400, -32700, 'Parse error: Invalid JSON');
    return undefined;
  }
}

/** Answers 400 and says so when the client names a protocol version this server does not speak. */
function versionRefused(version: string | undefined, res: McpResponse): boolean {
  if (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
  jsonError(
    res,
    400,
    -32000,
    `Bad Request: Unsupported protocol version: ${version} (supported ` +
      `versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
  );
  return true;
}

/** The JSON-RPC messages of a POST's JSON, or undefined once it was answered with the error that says what is wrong. */
function toMessages(raw: unknown, client: McpClient, res: McpResponse): JSONRPCMessage[] | undefined {
  if (Array.isArray(raw) && raw.length > MAX_BATCH) {
    jsonError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    return undefined;
  }
  const parsed = (Array.isArray(raw) ? raw : [raw]).map((m) => JSONRPCMessageSchema.safeParse(m));
  const invalid = parsed.findIndex((p) => !p.success);
  if (parsed.length === 0 || invalid >= 0) {
    // JSON, but not JSON-RPC: the request is invalid, and a single one gets its own id back when it has one.
    const one = Array.isArray(raw) ? raw[invalid] : raw;
    const problem = parsed.length === 0 ? 'an empty batch' : (messageProblem(one) ?? 'not a JSON-RPC message');
    const refusal = invalidRequest(Array.isArray(raw) ? undefined : raw, problem);
    const where = Array.isArray(raw) && parsed.length > 0 ? ` (message ${invalid + 1} of the batch)` : '';
    jsonError(res, 400, refusal.code, refusal.message + where, refusal.id);
    return undefined;
  }
  const messages = parsed.map((p) => p.data!);
  const initializing = messages.some(isInitializeRequest);
  if (initializing && messages.length > 1) {
    jsonError(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
    return undefined;
  }
  return !initializing && versionRefused(client.version, res) ? undefined : messages;
}

/** The Core's own failure, said as JSON-RPC's internal error (its first line only). */
function internalError(res: McpResponse, err: unknown): void {
  jsonError(
    res,
    500,
    -32603,
    err instanceof Error ? (err.message.split('\n')[0] ?? 'internal error') : 'internal error',
  );
}

/** The request a notifications/cancelled names, if the message is one. */
function cancelledRequest(message: JSONRPCMessage): RequestId | undefined {
  // Most messages are requests: looked at by name first, so a tool call does not pay for a schema's failed parse.
  if (!('method' in message) || message.method !== 'notifications/cancelled') return undefined;
  const parsed = CancelledNotificationSchema.safeParse(message);
  return parsed.success ? parsed.data.params.requestId : undefined;
}

export function mcpHttpHandler(callTool: ToolCaller): McpHttp {
  const open = new Set<OnePostTransport>();
  /** The calls answered without a Server that still run: each ends itself with an answer when the Core stops. */
  const stops = new Set<(text: string) => void>();
  const running = new RunningRequests();
  const close = async (): Promise<void> => {
    for (const stop of [...stops]) stop(STOPPED_TEXT);
    // Shutting down: a transport that fails to stop is gone anyway.
    await Promise.all([...open].map((t) => t.stop(STOPPED_TEXT).catch(() => undefined)));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'application/json', allow: 'POST' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; use POST' },
          id: null,
        }),
      );
      return;
    }
    // Counted beside readBody's own count, which ends at its limit: the memory a POST leaves is given back after it.
    let size = 0;
    req.on('data', (chunk: Buffer) => void (size += chunk.length));
    res.once('close', () => afterLargeRequest(size));
    try {
      const json = await readJson(req, res);
      if (!json) return;
      const version = req.headers['mcp-protocol-version'];
      await answer(json.raw, { id: String(req.headers['mcp-session-id'] ?? ''), version: version as string }, res);
    } catch (err) {
      internalError(res, err);
    }
  };
  const answer = async (raw: unknown, client: McpClient, res: McpResponse): Promise<void> => {
    try {
      await answerMessages(raw, client, res);
    } catch (err) {
      internalError(res, err);
    }
  };
  const answerMessages = async (raw: unknown, client: McpClient, res: McpResponse): Promise<void> => {
    const clientId = client.id;
    // The requests a working client sends most are answered here, without a Server; the rest go to the SDK's.
    const hot = hotRequest(raw);
    if (hot) {
      if (versionRefused(client.version, res)) return;
      await answerHot(hot, res, { callTool, running, clientId, stops });
      return;
    }
    const messages = toMessages(raw, client, res);
    if (!messages) return;
    const asked = messages.filter(isJSONRPCRequest).map((m) => ({ id: m.id, method: m.method }));
    const requests = asked.map((r) => r.id);
    let answered = requests.length === 0;
    const settled = (id: RequestId): void => running.settle(clientId, id, transport);
    let streaming = false;
    const transport = new OnePostTransport(
      asked,
      {
        notify: (message, earlier) => {
          // Answered already (as JSON), or the client went away (its calls are being cancelled).
          if ((res.headersSent && !streaming) || res.destroyed) return;
          if (!streaming) {
            // The SDK's transport in its streaming mode: the same headers, each message one event.
            streaming = true;
            res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
            for (const answer of earlier) res.write(sseEvent(JSON.stringify(answer)));
          }
          res.write(sseEvent(JSON.stringify(message)));
        },
        answer: (message) => {
          if (streaming && !res.destroyed) res.write(sseEvent(JSON.stringify(message)));
        },
        done: (answers) => {
          answered = true;
          if (streaming) return void res.end();
          if (res.headersSent) return;
          // Every request was cancelled: nothing to answer (the client stopped waiting for it).
          if (answers.length === 0) return void res.writeHead(202).end();
          sendJson(res, JSON.stringify(answers.length === 1 ? answers[0] : answers));
        },
      },
      settled,
    );
    const server = createMcpServer(callTool);
    open.add(transport);
    // A client that goes away (dropped, or timed out and closed its socket) cancels what it asked: the Server aborts
    // its handlers' signals when its transport closes, which kills their commands and withdraws their approvals.
    // Once every request is answered nothing of the POST runs on, and its Server is dropped without closing it:
    // closing builds the error it would abort its handlers with, stack trace and all, for every request.
    res.once('close', () => {
      open.delete(transport);
      for (const id of requests) settled(id);
      if (!answered) void server.close().catch(() => undefined); // its client went away: nothing is left to tell
    });
    await server.connect(transport);
    // In order: a request is running from the moment its Server has it, and a cancel reaches the POST (this one or
    // an earlier one) whose request it names; one that names nothing running goes to this POST's Server, which
    // ignores it.
    for (const message of messages) {
      const cancelled = cancelledRequest(message);
      if (cancelled !== undefined && running.cancel(clientId, cancelled, message)) continue;
      if (isJSONRPCRequest(message)) running.add(clientId, message.id, transport);
      transport.onmessage?.(message);
    }
    if (requests.length === 0) res.writeHead(202).end();
  };
  return { handle, close };
}
