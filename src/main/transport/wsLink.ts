// A Link for Node clients (CLI, MCP bridge, tests): the Core API over a WebSocket with a bearer token.
import WebSocket from 'ws';
import { SwitchboardError } from '../../shared/errors.js';
import { CoreClient, type Link } from '../../shared/client.js';
import type { WireRequest } from '../../shared/api.js';
import { personCookieHeader } from './personCookie.js';

/**
 * Connect to the Core at `wsUrl` with its token. `person`: the secret of a person's cookie (what a person link's code
 * bought), for a program a person started that acts as their window (tests do); sent as that cookie, never in the URL.
 * Without it the connection is a person's only from a terminal of its own.
 */
export async function connectCore(
  wsUrl: string,
  token: string,
  timeoutMs = 5000,
  person?: string,
): Promise<{ client: CoreClient; close: () => void }> {
  const headers = {
    authorization: `Bearer ${token}`,
    ...(person !== undefined ? { cookie: personCookieHeader(wsUrl, person) } : {}),
  };
  const ws = new WebSocket(wsUrl, { headers, handshakeTimeout: timeoutMs });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) =>
      reject(
        res.statusCode === 401
          ? // This client always sends a token: a 401 means it is not this Core's.
            new SwitchboardError(
              'unauthorized',
              'token not valid for this Core (HTTP 401)',
              'the token in core.json may be stale; restart the Core',
            )
          : new SwitchboardError(
              'no_core',
              `the Core refused the connection (HTTP ${res.statusCode})`,
              'the token in core.json may be stale; restart the Core',
            ),
      ),
    );
    ws.once('error', (err) =>
      reject(
        new SwitchboardError(
          'no_core',
          `cannot reach the Core at ${wsUrl}: ${err.message}`,
          'start one with `switchboard serve` or `npm start`',
        ),
      ),
    );
  });
  const link: Link = {
    send: (m: WireRequest) => ws.send(JSON.stringify(m)),
    onMessage: (h) =>
      ws.on('message', (raw, isBinary) => {
        // Binary frames are pane output (shared/paneFrame.ts); the default binaryType hands them over as one Buffer.
        if (isBinary)
          return h(raw instanceof Uint8Array ? raw : Buffer.concat(Array.isArray(raw) ? raw : [Buffer.from(raw)]));
        try {
          h(JSON.parse(raw.toString()));
        } catch {
          /* not ours */
        }
      }),
    onClose: (h) => ws.on('close', (code) => h(`code ${code}`)),
  };
  return { client: new CoreClient(link), close: () => ws.close() };
}
