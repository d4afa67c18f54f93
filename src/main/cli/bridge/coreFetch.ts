// The fetch `switchboard mcp` hands the MCP SDK's Streamable HTTP client transport: node:http on one keep-alive agent
// instead of Node's fetch, whose undici grows the bridge by about 12 MB for the whole of its life (an idle `node` is
// about 40 MB, and the bridge may be 10 more). It also tells the bridge what the transport keeps to itself: whether a
// POST reached the Core, and when the body of its answer ended, so a call whose answer was cut (the Core died while
// its progress came) is answered at once rather than waited for.
import { request, type Agent, type IncomingMessage } from 'node:http';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** What the bridge learns of one POST it sent. */
export interface PostWatch {
  /** The request reached the Core, or may have (a reused connection can fail after the Core read the request). */
  delivered: boolean;
  /** The status and body of a refusal (a status that is not 2xx). */
  refusal?: { status: number; text: string };
  /** The size of the answer's body when it was read whole (a JSON answer), in bytes. */
  bytes: number;
  /** The answer's body ended, `error` when it was cut; called once what came before the end was handed on. */
  ended(error?: Error): void;
}

/** The watch of the next POST the transport sends (the bridge queues one per message, in the order it sends them). */
export type NextPost = () => PostWatch | undefined;

/** A request's headers as node:http takes them, from what the SDK passes (its Headers, or a plain record). */
function headerRecord(headers: unknown): Record<string, string> {
  if (!headers) return {};
  const pairs =
    typeof headers === 'object' && Symbol.iterator in headers
      ? (headers as Iterable<[string, string]>)
      : Object.entries(headers as Record<string, string>);
  const record: Record<string, string> = {};
  for (const [name, value] of pairs) record[name.toLowerCase()] = value;
  return record;
}

/** As much of a fetch Response as the SDK's transport reads: status, headers, the body as text, JSON or a stream. */
class CoreResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly type = 'basic';
  readonly redirected = false;
  readonly headers: { get(name: string): string | null };
  private stream: ReadableStream<Uint8Array> | null | undefined;

  constructor(
    private readonly res: IncomingMessage,
    readonly url: string,
    private readonly watch: PostWatch | undefined,
  ) {
    this.status = res.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.statusText = res.statusMessage ?? '';
    this.headers = {
      get: (name) => {
        const value = res.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    };
    let cut: Error | undefined;
    res.on('error', (err) => (cut = err));
    res.once('close', () => {
      const error = res.complete ? undefined : (cut ?? Object.assign(new Error('closed'), { code: 'closed' }));
      // After the events already read were handed on: the stream's pipes pass them on in promise jobs, which all run
      // before an immediate.
      setImmediate(() => this.watch?.ended(error));
    });
  }

  /** The body as a web stream, made only when asked for (an event stream): web streams cost the bridge to load. */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream !== undefined) return this.stream;
    // 202 (a notification taken, a call cancelled) has nothing to read.
    if (this.status === 202 || this.status === 204) {
      this.res.resume();
      this.stream = null;
      return null;
    }
    const res = this.res;
    let done = false;
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        res.on('data', (chunk: Buffer) =>
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length)),
        );
        res.once('end', () => {
          if (!done) controller.close();
          done = true;
        });
        res.once('close', () => {
          if (!done) controller.error(Object.assign(new Error('the connection was lost'), { code: 'ECONNRESET' }));
          done = true;
        });
      },
      cancel: () => void res.destroy(),
    });
    return this.stream;
  }

  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      this.res.on('data', (chunk: Buffer) => parts.push(chunk));
      this.res.once('end', () => {
        const body = Buffer.concat(parts);
        if (this.watch) this.watch.bytes = body.length;
        const text = body.toString('utf8');
        if (!this.ok && this.watch) this.watch.refusal = { status: this.status, text };
        resolve(text);
      });
      this.res.once('close', () => {
        if (!this.res.complete) reject(Object.assign(new Error('the connection was lost'), { code: 'ECONNRESET' }));
      });
    });
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

/** A fetch to the Core at one endpoint: requests carry `token`, go out on `agent`, each POST takes the next watch. */
export function coreFetch(agent: Agent, token: string, nextPost: NextPost): FetchLike {
  const fetch = (url: string | URL, init?: RequestInit): Promise<CoreResponse> =>
    new Promise((resolve, reject) => {
      const method = init?.method ?? 'GET';
      const href = String(url);
      const watch = method === 'POST' ? nextPost() : undefined;
      const body = typeof init?.body === 'string' ? init.body : '';
      const headers = {
        ...headerRecord(init?.headers),
        authorization: `Bearer ${token}`,
        'content-length': String(Buffer.byteLength(body)),
      };
      const req = request(href, { method, headers, agent });
      req.once('socket', (socket) => {
        if (!watch) return;
        if (req.reusedSocket || !socket.connecting) watch.delivered = true;
        else socket.once('connect', () => (watch.delivered = true));
      });
      req.once('response', (res) => resolve(new CoreResponse(res, href, watch)));
      req.once('error', reject);
      req.end(body);
    });
  // The SDK reads only the parts of a Response that CoreResponse has.
  return fetch as unknown as FetchLike;
}
