// The page's exchange over HTTP: a person link's one-time code traded once for the lasting secret, set as an HttpOnly
// cookie (the only response that ever carries it), and whether a page is a person's. Behind WsServer's Host, Origin
// and token checks, and taken only from loopback.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { LINK_SPENT, PersonCode, type PersonPageState } from '../../shared/personPage.js';
import type { PersonLinks } from '../core/person/index.js';
import { personSetCookie } from './personCookie.js';

/** A code and its JSON fit in far less; a larger body is not a page's. */
const MAX_BODY_BYTES = 1024;

/** Whether the peer address is this machine's loopback (IPv4, IPv6 or IPv4-mapped). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

function answer(res: ServerResponse, status: number, body: PersonPageState, cookie?: string): void {
  res
    .writeHead(status, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      ...(cookie ? { 'set-cookie': cookie } : {}),
    })
    .end(JSON.stringify(body) + '\n');
}

/** The body, or undefined when it is over MAX_BODY_BYTES (the connection is dropped: no page sends that). */
function readSmallBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    // The client went away first: nobody to answer.
    req.once('close', () => resolve(undefined));
  });
}

export interface PersonRouteDeps {
  links: Pick<PersonLinks, 'exchange' | 'home'>;
  /** The port the Core listens on: it names the cookie. */
  port: () => number;
  /** Whether the request shows a person's cookie this Core knows. */
  isPerson: (req: IncomingMessage) => boolean;
}

/** GET: `{person}` for this request's cookie. POST `{code}`: the trade, once per code (the page's home with it). */
export function personRoute(deps: PersonRouteDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'GET' || req.method === 'HEAD') return answer(res, 200, { person: deps.isPerson(req) });
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'GET, HEAD, POST' }).end();
      return;
    }
    // Only the page, in a browser on this machine: a browser always sends Origin with a POST (WsServer checked that
    // it is this server's own), and the code must not travel past loopback.
    if (req.headers.origin === undefined || !isLoopback(req.socket.remoteAddress))
      return answer(res, 403, { person: false, problem: 'only the page, on this machine, may trade a link' });
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
      return answer(res, 415, { person: false, problem: 'send the code as application/json' });
    const text = await readSmallBody(req);
    if (text === undefined) return;
    let parsed: ReturnType<typeof PersonCode.safeParse>;
    try {
      parsed = PersonCode.safeParse(JSON.parse(text));
    } catch {
      // Not JSON: answered as a body without a code.
      parsed = PersonCode.safeParse(undefined);
    }
    if (!parsed.success) return answer(res, 400, { person: false, problem: 'the body must be {"code": "…"}' });
    const secret = deps.links.exchange(parsed.data.code);
    if (!secret) return answer(res, 403, { person: false, problem: LINK_SPENT });
    const home = deps.links.home;
    answer(res, 200, { person: true, home: `${home}/` }, personSetCookie(deps.port(), secret, home));
  };
}
