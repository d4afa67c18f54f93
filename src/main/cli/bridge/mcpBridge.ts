// `switchboard mcp`: MCP on stdio for the clients that start a server program, bridged to the running Core's /mcp with
// the MCP SDK's own transports (stdio on the client's side, Streamable HTTP on the Core's), so the Core stays the one
// MCP server. The bridge forwards each message once and answers, itself, only what the Core cannot: no Core runs
// (every request, initialize too, until one does), a request whose connection was lost (it may have run: never sent
// again), a line too long or no JSON-RPC. core.json is read again whenever the Core it named stops answering, so a
// restarted Core is found. It runs as its own small bundle (scripts/build.mjs), without the program or zod.
import { closeSync, openSync, readSync } from 'node:fs';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_REQUEST_BYTES } from '../../../shared/limits.js';
import { afterLargeRequest, afterWork, switchboardHome } from '../../core/platform/index.js';
import type { MessageId } from '../../core/platform/index.js';
import { readCoreEndpoint, type CoreEndpoint, type CoreProblem } from '../../transport/coreEndpoint.js';
import {
  errorAnswer,
  failureAnswer,
  idOfCut,
  lostText,
  PARSE_ERROR,
  reasonOf,
  refusalAnswer,
  TOO_LARGE,
  UNAUTHORIZED_TEXT,
  unreachableText,
  type Asked,
} from './bridgeAnswers.js';
import { coreFetch, type PostWatch } from './coreFetch.js';
import { InvalidMessage } from './sdkTypes.js';
import { StdinLines } from './stdinLines.js';

/**
 * An idle keep-alive connection is closed by the bridge before the Core's HTTP server would close it (node:http's
 * 5 s): a request is then never written on a connection the Core is closing at that moment.
 */
const IDLE_CONNECTION_MS = 4000;

/**
 * 128 random bits as hex, from the kernel: node:crypto would cost the bridge's start about a tenth of its time to load.
 * An id another agent cannot guess: a cancel reaches the calls of its own client id only.
 */
function randomId(): string {
  const bytes = Buffer.alloc(16);
  const fd = openSync('/dev/urandom', 'r');
  try {
    readSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  return bytes.toString('hex');
}

/** A request id as a map key: the number 1 and the string "1" are two requests. */
const key = (id: MessageId): string => (typeof id === 'number' ? `#${id}` : `"${id}`);

/** One POST's watch, with a promise of the end of its answer's body. */
class Watch implements PostWatch {
  delivered = false;
  bytes = 0;
  refusal?: { status: number; text: string };
  ended!: (error?: Error) => void;
  readonly done = new Promise<Error | undefined>((resolve) => (this.ended = resolve));
}

/**
 * Opens the connection the first request to `url` will take, as the bridge starts: the client writes `initialize` as
 * soon as it started the bridge, and the connect then overlaps the reading of it.
 */
function preconnect(agent: Agent, url: URL): void {
  const port = Number(url.port) || 80;
  let early: Socket | undefined = connect(port, url.hostname);
  // A failed connect is found again, and said, by the request that would have taken it.
  early.once('error', () => undefined);
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = early;
    early = undefined;
    agent.createConnection = create;
    const same = options.port === port || Number(options.port) === port;
    if (socket && !socket.destroyed && same && options.host === url.hostname) return socket;
    socket?.destroy();
    return create(options, callback);
  };
}

/** The Core at one endpoint, and the SDK transport that POSTs to it. */
class CoreLink {
  readonly transport: StreamableHTTPClientTransport;
  private readonly watches: Watch[] = [];

  constructor(
    readonly endpoint: CoreEndpoint,
    sessionId: string,
    agent: Agent,
    onmessage: (message: JSONRPCMessage) => void,
    protocolVersion: string | undefined,
  ) {
    this.transport = new StreamableHTTPClientTransport(new URL(endpoint.mcpUrl), {
      // The bridge's own client id at the Core: its cancels reach only its own calls.
      sessionId,
      // The transport asks for each POST in the order it was sent, so each takes the watch queued with it.
      fetch: coreFetch(agent, endpoint.token, () => this.watches.shift()),
    });
    this.transport.onmessage = onmessage;
    // A failure is answered to the request it struck (Bridge.failed); the transport's own report of it adds nothing.
    this.transport.onerror = () => undefined;
    if (protocolVersion) this.transport.setProtocolVersion(protocolVersion);
    void this.transport.start();
  }

  send(message: JSONRPCMessage, watch: Watch): Promise<void> {
    this.watches.push(watch);
    return this.transport.send(message);
  }

  names(endpoint: CoreEndpoint): boolean {
    return endpoint.mcpUrl === this.endpoint.mcpUrl && endpoint.token === this.endpoint.token;
  }
}

const noCoreText = ({ problem, hint }: CoreProblem): string => `no_core: ${problem} — ${hint}`;

class Bridge {
  /** Requests sent and not yet answered: each is answered once, by the Core or by the bridge. */
  private readonly asked = new Map<string, Asked>();
  private readonly sessionId = randomId();
  private readonly agent = new Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
  private readonly stdio: StdioServerTransport;
  private readonly lines = new PassThrough();
  private link: CoreLink | undefined;
  private protocolVersion: string | undefined;
  /** Messages on their way to the Core, or whose answer is still coming. */
  private sending = 0;
  /** The largest line or answer since the bridge was last idle: its copies are given back once it is (bytes). */
  private largest = 0;
  private stdinEnded = false;

  constructor(private readonly home: string) {
    // Each whole line is one write to the transport's reader, which holds nothing longer than the longest line.
    this.stdio = new StdioServerTransport(this.lines, process.stdout, { maxBufferSize: MAX_REQUEST_BYTES + 2 });
    this.stdio.onmessage = (message) => this.fromClient(message);
    this.stdio.onerror = (err) => this.unreadable(err);
  }

  start(): void {
    const found = this.endpoint();
    if (found instanceof CoreLink) preconnect(this.agent, new URL(found.endpoint.mcpUrl));
    else
      process.stderr.write(
        `switchboard: ${found.problem} — ${found.hint}; each request is answered so until one runs\n`,
      );
    // A client that closed its end of stdout is gone: nobody is left to answer.
    process.stdout.on('error', () => process.exit(0));
    void this.stdio.start();
    const split = new StdinLines({
      line: (bytes) => {
        this.largest = Math.max(this.largest, bytes.length);
        this.lines.write(Buffer.concat([bytes, Buffer.from('\n')]));
      },
      tooLong: (head, tail) => this.write(errorAnswer(idOfCut(head, tail), -32000, TOO_LARGE)),
    });
    process.stdin.on('data', (chunk: Buffer) => split.push(chunk));
    process.stdin.once('end', () => {
      split.finish();
      this.lines.end();
    });
    // stdin failing is stdin ending: no more requests come.
    process.stdin.once('error', () => this.lines.end());
    // Once every line was read: what was sent is still answered, then the bridge exits.
    this.lines.once('end', () => {
      this.stdinEnded = true;
      this.exitWhenDone();
    });
  }

  /** The Core core.json names, or why there is none (read again only when the last one failed). */
  private endpoint(): CoreLink | CoreProblem {
    if (this.link) return this.link;
    const found = readCoreEndpoint(this.home);
    if ('problem' in found) return found;
    this.link = new CoreLink(found, this.sessionId, this.agent, (m) => this.fromCore(m), this.protocolVersion);
    return this.link;
  }

  private fromClient(message: JSONRPCMessage): void {
    const method = 'method' in message ? message.method : undefined;
    // The Core keeps no session (each POST has a Server of its own), so `initialized` would change nothing there.
    if (method === 'notifications/initialized') return;
    let asked: Asked | undefined;
    if (method !== undefined && 'id' in message && message.id !== undefined) {
      asked = { id: message.id, method };
      this.asked.set(key(message.id), asked);
    }
    if (method === 'notifications/cancelled' && 'params' in message) {
      // The Core answers a cancelled request with nothing, and so does the bridge.
      const cancelled = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof cancelled === 'string' || typeof cancelled === 'number') this.asked.delete(key(cancelled));
    }
    void this.send(message, asked);
  }

  private fromCore(message: JSONRPCMessage): void {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      const asked = this.asked.get(key(message.id));
      // Answered already (cancelled, or said lost when its connection broke): never twice.
      if (!asked) return;
      this.asked.delete(key(message.id));
      const version = 'result' in message ? message.result.protocolVersion : undefined;
      if (asked.method === 'initialize' && typeof version === 'string') {
        this.protocolVersion = version;
        this.link?.transport.setProtocolVersion(version);
      }
    }
    this.write(message);
  }

  /** A line the SDK's reader could not take: not JSON (-32700), or JSON but no JSON-RPC message (-32600, its id). */
  private unreadable(err: Error): void {
    if (err instanceof InvalidMessage) this.write(errorAnswer(err.answer.id, err.answer.code, err.answer.message));
    else if (err instanceof SyntaxError) this.write(errorAnswer(null, PARSE_ERROR.code, PARSE_ERROR.message));
  }

  /** `message` to the Core, once; `retried` when a first try provably never reached a Core. */
  private async send(message: JSONRPCMessage, asked: Asked | undefined, retried = false): Promise<void> {
    this.sending++;
    try {
      const link = this.endpoint();
      if (!(link instanceof CoreLink)) return this.answer(asked, noCoreText(link));
      const watch = new Watch();
      try {
        await link.send(message, watch);
      } catch (err) {
        return await this.failed(message, asked, link, watch, err, retried);
      } finally {
        this.largest = Math.max(this.largest, watch.bytes);
      }
      // Whatever the answer's body held was handed on by now: a request it did not answer was lost with it.
      const cut = await watch.done;
      if (cut) this.link = undefined;
      this.answer(asked, lostText(link.endpoint.mcpUrl, cut ? reasonOf(cut) : 'its answer ended without it'));
    } finally {
      this.sending--;
      if (this.sending === 0) {
        // A message of megabytes leaves its copies (the line, its parse, the POST's body) for V8's next full
        // collection, which an idle bridge runs late; and the young generation a burst grew (up to 32 MB) stays
        // grown. Once idle, both are given back, as in the Core (measured: 8 MB written, 104 MB, then 71 MB without).
        if (this.largest > 0) afterLargeRequest(this.largest);
        this.largest = 0;
        afterWork();
      }
      this.exitWhenDone();
    }
  }

  private async failed(
    message: JSONRPCMessage,
    asked: Asked | undefined,
    link: CoreLink,
    watch: Watch,
    err: unknown,
    retried: boolean,
  ): Promise<void> {
    const { refusal } = watch;
    if (refusal && refusal.status !== 401) {
      if (asked && this.asked.delete(key(asked.id))) this.write(refusalAnswer(asked, refusal.status, refusal.text));
      return;
    }
    // Refused before it ran (401: a token of another Core), or it never reached the Core: core.json may name the
    // next Core, which gets it instead; anything else it may have run, and is not sent again.
    const unsent = refusal !== undefined || !watch.delivered;
    this.link = undefined;
    if (!unsent) return this.answer(asked, lostText(link.endpoint.mcpUrl, reasonOf(err)));
    const next = this.endpoint();
    if (next instanceof CoreLink && !next.names(link.endpoint) && !retried) return this.send(message, asked, true);
    if (!(next instanceof CoreLink)) return this.answer(asked, noCoreText(next));
    this.answer(asked, refusal ? UNAUTHORIZED_TEXT : unreachableText(link.endpoint.mcpUrl, reasonOf(err)));
  }

  /** The bridge's own answer to `asked`, unless it was answered already. */
  private answer(asked: Asked | undefined, text: string): void {
    if (asked && this.asked.delete(key(asked.id))) this.write(failureAnswer(asked, text));
  }

  private write(message: JSONRPCMessage): void {
    void this.stdio.send(message);
  }

  private exitWhenDone(): void {
    if (!this.stdinEnded || this.sending > 0) return;
    this.agent.destroy();
    // Once what was written has left: the client reads every answer.
    process.stdout.write('', () => process.exit(0));
  }
}

/** The profile folder `--profile` names: a leading `~/` is the user's home (client configs pass it as written). */
export function profileFolder(profile: string | undefined): string {
  if (profile === undefined || profile === '') return switchboardHome();
  return resolve(profile === '~' || profile.startsWith('~/') ? homedir() + profile.slice(1) : profile);
}

/** Run the bridge until stdin ends and everything sent is answered. */
export function runMcpBridge(opts: { profile?: string }): void {
  new Bridge(profileFolder(opts.profile)).start();
}
