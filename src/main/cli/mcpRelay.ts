// `switchboard mcp`: MCP on stdio, relayed to the running Core's own MCP endpoint (Streamable HTTP at /mcp, with the
// mcp_url and the agent token of core.json). Each line the client writes is one POST, and its answer goes back as
// lines: one JSON body, or the events of a call that sends progress (its notifications, then its result). The Core
// answers everything itself (initialize, tools/list, calls, cancels), so there is one MCP implementation, and the
// relay loads nothing but Node's built-ins: it is ready as soon as Node is, and a first call costs what any call does.
import { setFlagsFromString } from 'node:v8';
import { MAX_FILE_CONTENT_CHARS, MAX_REQUEST_BYTES, mib } from '../../shared/limits.js';
import { afterWork } from '../core/afterLargeRequest.js';
import { switchboardHome } from '../core/home.js';
import { pidAlive } from '../core/processes/processAlive.js';
import { NoCore, readCoreEndpoint, sameEndpoint, type CoreEndpoint } from './coreEndpoint.js';
import { CoreConnections, type CoreResponse, type PostError } from './coreHttp.js';
import { keepRunning } from './longRunning.js';
import { asLine, readBody, readEvents, readLines } from './mcpLines.js';

type RequestId = string | number;
/** What the relay reads of a client's message: its id and method, when it has them. */
interface Peeked {
  id?: RequestId;
  method?: string;
}

/** Lines up to this size are read as they come (an initialize is small); a longer one only if it fails. */
const PEEK_BYTES = 64 * 1024;
/** Connection errors that say the request never reached a Core: sending it elsewhere cannot run it twice. */
const NOT_REACHED = new Set(['ECONNREFUSED', 'ENOENT', 'EADDRNOTAVAIL']);
const START_ONE = 'start one with `switchboard serve` or `npm start`';

/** The id and method of a message that is a JSON object; undefined for anything else (not JSON, a batch). */
function peek(line: Buffer): Peeked | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line.toString('utf8'));
  } catch {
    // not JSON: the Core answers it with JSON-RPC's parse error
    return undefined;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { id, method } = message as Record<string, unknown>;
  return {
    ...(typeof id === 'string' || typeof id === 'number' ? { id } : {}),
    ...(typeof method === 'string' ? { method } : {}),
  };
}

/** Why a message was not answered by the Core, in the words (and error codes) of every Switchboard client. */
class RelayFailure extends Error {
  constructor(
    readonly code: 'no_core' | 'unauthorized',
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }

  get line(): string {
    return `${this.code}: ${this.message} — ${this.hint}`;
  }
}

const unauthorized = (): RelayFailure =>
  new RelayFailure(
    'unauthorized',
    'token not valid for this Core (HTTP 401)',
    'the token in core.json may be stale; restart the Core',
  );

/** The id a too-long line was sent with, from its first or last bytes (where clients write it); null if not there. */
function idOfCut(head: string, tail: string): RequestId | null {
  // Only where it can be the message's own id: first after `{` (and jsonrpc), or last before the closing `}`.
  const value = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
  const found =
    new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}\s*,`).exec(head)?.[1] ??
    new RegExp(String.raw`,\s*"id"\s*:\s*${value}\s*\}\s*$`).exec(tail)?.[1];
  return found === undefined ? null : (JSON.parse(found) as RequestId);
}

class Relay {
  /**
   * The Mcp-Session-Id of each POST: the Core's if it gives one, else one of this bridge's own. The Core finds the
   * request a notifications/cancelled names by session and id, and ids repeat across agents (every one counts from
   * 0): without it, one agent's cancel would stop another's call of the same id.
   */
  private session = Relay.ownSession();
  private sessionFromCore = false;
  /** The protocol version initialize agreed on, sent with every later POST. */
  private version: string | undefined;
  /** The client's initialize and notifications/initialized, said again to a Core that took over (a restart). */
  private initialize: Buffer | undefined;
  private initialized: Buffer | undefined;
  /** Lines that came while an initialize is answered: they go out with the version and session it sets. */
  private held: Buffer[] | undefined;
  private following: Promise<void> | undefined;
  private inFlight = 0;
  private ended = false;
  private readonly connections = new CoreConnections();

  constructor(private endpoint: CoreEndpoint) {}

  private static ownSession(): string {
    return `switchboard-mcp-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  }

  line(bytes: Buffer): void {
    if (this.held) return void this.held.push(bytes);
    const peeked = bytes.length <= PEEK_BYTES ? peek(bytes) : undefined;
    if (peeked?.method === 'notifications/initialized') {
      this.initialized = bytes;
      // A Core without sessions keeps nothing between POSTs: the notification would only cost it a Server's making
      // while the client's first call, sent right behind it, waits. A Core with sessions is told (sayHelloAgain too).
      if (!this.sessionFromCore) return;
    }
    if (peeked?.method !== 'initialize' || peeked.id === undefined) return this.track(this.relay(bytes, peeked));
    this.held = [];
    this.track(
      this.relay(bytes, peeked).then(() => {
        const held = this.held ?? [];
        this.held = undefined;
        for (const line of held) this.line(line);
      }),
    );
  }

  /** A line over the limit: answered here, as the Core answers a body over it (413), and never held whole. */
  tooLong(head: string, tail: string): void {
    this.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: idOfCut(head, tail),
        error: {
          code: -32000,
          message:
            `Payload Too Large: the message is over the ${mib(MAX_REQUEST_BYTES)} a request may be; write a large ` +
            `file in parts of at most ${mib(MAX_FILE_CONTENT_CHARS)}, and put a long command in a file`,
        },
      }),
    );
  }

  /** stdin ended: what is in flight is still answered, then the process exits. */
  end(): void {
    this.ended = true;
    this.exitWhenDone();
  }

  private track(work: Promise<void>): void {
    this.inFlight++;
    void work.finally(() => {
      this.inFlight--;
      // The bridge lives as long as its agent: what a burst of calls grew is given back when they stop.
      afterWork();
      this.exitWhenDone();
    });
  }

  private exitWhenDone(): void {
    if (this.ended && this.inFlight === 0 && !this.held) process.stdout.write('', () => process.exit(0));
  }

  /** One message to the Core and its answer back; never rejects (a failure is answered as what it is). */
  private async relay(bytes: Buffer, peeked: Peeked | undefined): Promise<void> {
    const initialize = peeked?.method === 'initialize';
    try {
      const res = await this.post(bytes, initialize);
      if (res.status < 200 || res.status >= 300) return await this.refused(res, bytes, peeked);
      if (/^text\/event-stream/.test(res.headers['content-type'] ?? ''))
        return await readEvents(res.body, (data) => this.write(data));
      const body = await readBody(res.body);
      if (initialize) this.learn(res, body, bytes);
      if (body.length > 0) this.write(body);
    } catch (err) {
      // Anything else broke while the Core had the request (an answer cut short): it may have run.
      const failure = err instanceof RelayFailure ? err : this.lost(this.endpoint, err as NodeJS.ErrnoException);
      const request = peeked ?? peek(bytes);
      // A notification has no one waiting for an answer.
      if (request?.id === undefined) return;
      // A tool call's failure is a tool error, which the model reads (as the Core's own are); any other's an error.
      this.write(
        JSON.stringify(
          request.method === 'tools/call'
            ? {
                jsonrpc: '2.0',
                id: request.id,
                result: { content: [{ type: 'text', text: failure.line }], isError: true },
              }
            : { jsonrpc: '2.0', id: request.id, error: { code: -32000, message: failure.line } },
        ),
      );
    }
  }

  /**
   * POST one message to the Core, following it to a new one once when the request did not reach it (a restart) or
   * was refused before it was read (a token of the last Core, a session it does not know). A request that may have
   * run is never sent again.
   */
  private async post(bytes: Buffer, initialize: boolean, again = false): Promise<CoreResponse> {
    const endpoint = this.endpoint;
    let res: CoreResponse;
    try {
      res = await this.send(endpoint, bytes, initialize);
    } catch (err) {
      const e = err as PostError;
      if (!again && e.reused && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && pidAlive(endpoint.pid))
        // A kept-alive connection the Core closed for idling as it was reused: the request was never read.
        return this.post(bytes, initialize, true);
      if (again || !NOT_REACHED.has(e.code ?? '')) throw this.lost(endpoint, e);
      await this.follow(
        endpoint,
        new RelayFailure('no_core', `cannot reach the Core at ${endpoint.url.href}: ${e.code}`, START_ONE),
      );
      return this.post(bytes, initialize, true);
    }
    if (again) return res;
    if (res.status === 401) {
      res.body.resume();
      await this.follow(endpoint, unauthorized());
      return this.post(bytes, initialize, true);
    }
    if (res.status === 404 && this.sessionFromCore && !initialize) {
      // The Core no longer knows this session (it restarted in place): initialize again, then the request.
      res.body.resume();
      await this.sayHelloAgain(endpoint);
      return this.post(bytes, initialize, true);
    }
    return res;
  }

  private send(endpoint: CoreEndpoint, bytes: Buffer, initialize: boolean): Promise<CoreResponse> {
    const headers: Record<string, string | number> = {
      authorization: `Bearer ${endpoint.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    // An initialize starts a session: it names none, and the version is what it agrees on.
    if (!initialize) headers['mcp-session-id'] = this.session;
    if (!initialize && this.version) headers['mcp-protocol-version'] = this.version;
    return this.connections.post(endpoint.url, headers, bytes);
  }

  /**
   * The Core at `from` did not take a request: read core.json again, and go on with the Core it names now (saying the
   * client's initialize to it first). `unchanged` is thrown when it names the same Core. Requests that fail together
   * wait for one look.
   */
  private follow(from: CoreEndpoint, unchanged: RelayFailure): Promise<void> {
    if (this.endpoint !== from) return Promise.resolve();
    this.following ??= (async () => {
      let next: CoreEndpoint;
      try {
        next = readCoreEndpoint(switchboardHome());
      } catch (err) {
        throw err instanceof NoCore ? new RelayFailure('no_core', err.message, err.hint) : err;
      }
      if (sameEndpoint(next, from)) throw unchanged;
      await this.sayHelloAgain(next);
      this.endpoint = next;
    })().finally(() => (this.following = undefined));
    return this.following;
  }

  /** The client's initialize (and initialized) to `endpoint` again; its answer was given once and is not written. */
  private async sayHelloAgain(endpoint: CoreEndpoint): Promise<void> {
    this.session = Relay.ownSession();
    this.sessionFromCore = false;
    if (!this.initialize) return;
    const res = await this.send(endpoint, this.initialize, true).catch((err: NodeJS.ErrnoException) => {
      throw this.lost(endpoint, err);
    });
    const body = await readBody(res.body);
    if (res.status !== 200)
      throw new RelayFailure('no_core', `the Core refused this client's initialize (HTTP ${res.status})`, START_ONE);
    this.learn(res, body, this.initialize);
    if (this.initialized && this.sessionFromCore) (await this.send(endpoint, this.initialized, false)).body.resume();
  }

  /** From an initialize's answer: the session the Core gives (if any) and the protocol version agreed on. */
  private learn(res: CoreResponse, body: Buffer, request: Buffer): void {
    const session = res.headers['mcp-session-id'];
    if (session) {
      this.session = session;
      this.sessionFromCore = true;
    }
    try {
      const version = (JSON.parse(body.toString('utf8')) as { result?: { protocolVersion?: unknown } }).result
        ?.protocolVersion;
      if (typeof version !== 'string') return;
      this.version = version;
      this.initialize = request;
    } catch {
      // Not an answer that agreed on anything: the client hears it as it is, and nothing is learned.
    }
  }

  /** The connection broke while `endpoint` had the request: it may have run, so it is answered, not sent again. */
  private lost(endpoint: CoreEndpoint, err: NodeJS.ErrnoException): RelayFailure {
    return new RelayFailure(
      'no_core',
      `the connection to the Core at ${endpoint.url.href} was lost (${err.code ?? err.message}); the request may ` +
        'have run',
      'the next request finds the Core again through core.json',
    );
  }

  /**
   * The Core refused the message (the status says why, the body is JSON-RPC's error for most): the client gets that
   * error, with the id of its request when it had one (the Core's says null when it could not read the message).
   */
  private async refused(res: CoreResponse, bytes: Buffer, peeked: Peeked | undefined): Promise<void> {
    const body = await readBody(res.body);
    if (res.status === 401) throw unauthorized();
    let error: unknown;
    try {
      error = (JSON.parse(body.toString('utf8')) as { error?: unknown }).error;
    } catch {
      // a plain-text refusal (403): said below with its status
    }
    if (typeof error !== 'object' || error === null)
      error = {
        code: -32000,
        message: `the Core refused the message (HTTP ${res.status}: ${body.toString('utf8').split('\n')[0]})`,
      };
    const request = peeked ?? peek(bytes);
    // A notification the Core could read has no one waiting for an answer.
    if (request?.method !== undefined && request.id === undefined) return;
    this.write(JSON.stringify({ jsonrpc: '2.0', id: request?.id ?? null, error }));
  }

  private write(message: Buffer | string): void {
    let line: Buffer;
    try {
      line = asLine(message);
    } catch {
      // Not JSON, so not a message a client could read: never written to stdout, which carries MCP only.
      return;
    }
    process.stdout.write(line);
  }
}

/** Relay MCP between stdin and stdout and the running Core; without one, one stderr line and exit status 1. */
export function serveMcp(): void {
  // V8's optimizing compiler, never started: the relay's work on a message is a few small functions, and optimizing
  // them cost the long-lived bridge more memory (the compiler's own code and data, 5 MB after 300 calls) than time.
  setFlagsFromString('--no-opt');
  let endpoint: CoreEndpoint;
  try {
    endpoint = readCoreEndpoint(switchboardHome());
  } catch (err) {
    if (!(err instanceof NoCore)) throw err;
    process.stderr.write(`switchboard: ${err.message} — ${err.hint}\n`);
    process.exitCode = 1;
    return;
  }
  keepRunning();
  const relay = new Relay(endpoint);
  // The client is gone (its end of stdout closed): there is no one left to answer.
  process.stdout.on('error', () => process.exit(0));
  readLines(process.stdin, MAX_REQUEST_BYTES, {
    line: (bytes) => relay.line(bytes),
    tooLong: (head, tail) => relay.tooLong(head, tail),
    end: () => relay.end(),
  });
}
