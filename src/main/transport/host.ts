// Starts a full Core behind the WebSocket server and publishes core.json; used by `serve` and by Electron.
import { mkdirSync } from 'node:fs';
import { Core, switchboardHome } from '../core/core.js';
import { defaultCoreOptions } from '../core/defaults.js';
import type { KeyValueStoreFactory } from '../core/workspace/index.js';
import { WsServer } from './wsServer.js';
import { claimProfile, personLinkUrl, removeCoreFile, writeCoreFile } from './coreFile.js';
import { keepEndpoint, lastEndpoint } from './stableEndpoint.js';
import type { McpHttp } from '../core/mcp/index.js';
import { namingFailure } from '../core/platform/index.js';

export interface Host {
  core: Core;
  server: WsServer;
  url: string;
  wsUrl: string;
  /**
   * A new person link: the URL with the token, and a one-time code in its #fragment (never sent to a server) that the
   * page trades for the person's cookie. Hand it only to a person.
   */
  personLink(): string;
  close(): Promise<void>;
}

export async function startHost(opts: {
  host?: string;
  port?: number;
  mode: 'serve' | 'electron';
  home?: string;
  rendererDir?: string;
  uiStore?: KeyValueStoreFactory;
  /** Heard once when the profile's previous Core is still stopping and this one waits for it. */
  onWaitForStopping?: (pid: number | undefined) => void;
}): Promise<Host> {
  const home = opts.home ?? switchboardHome();
  namingFailure({ path: home, action: 'create', doing: 'starting the Core (making its profile folder)' }, () =>
    mkdirSync(home, { recursive: true, mode: 0o700 }),
  );
  const profile = await claimProfile(home, { onWait: opts.onWaitForStopping });
  let core: Core;
  try {
    core = await new Core({ ...defaultCoreOptions({ uiStore: opts.uiStore }), home }).start();
  } catch (err) {
    profile.release();
    throw err;
  }
  // The last Core's port (when free) and token: a page left open, and an MCP client's saved token, find this one.
  const last = lastEndpoint(home);
  const server = new WsServer(core, {
    host: opts.host,
    port: opts.port,
    rendererDir: opts.rendererDir,
    personLinks: core.personLinks,
    ...(last ? { preferPort: last.port, token: last.token } : {}),
  });
  // MCP over Streamable HTTP; the WsServer checks the bearer token, Host and Origin first.
  // The MCP SDK loads with the first request to /mcp: an idle Core (or one only a window talks to) does not hold it.
  let mcp: Promise<McpHttp> | undefined;
  const loadMcp = (): Promise<McpHttp> =>
    (mcp ??= import('../core/mcp/mcpHttp.js').then((m) =>
      m.mcpHttpHandler((tool, args, signal, progress) => core.callTool(tool, args, 'mcp', signal, progress)),
    ));
  server.route('/mcp', async (req, res) => (await loadMcp()).handle(req, res));
  let listening: { url: string; wsUrl: string };
  try {
    listening = await server.listen();
  } catch (err) {
    await core.close();
    profile.release();
    throw err;
  }
  try {
    writeCoreFile(core.home, {
      url: listening.url,
      ws_url: listening.wsUrl,
      mcp_url: `${listening.url}mcp`,
      token: server.token,
      pid: process.pid,
      started_at: new Date().toISOString(),
      mode: opts.mode,
    });
  } catch (err) {
    // Nobody could reach a Core whose address is not published: it stops as cleanly as it started.
    await server.close();
    await core.close();
    profile.release();
    throw err;
  }
  // After core.json: what the next Core reuses matters less than this one being reachable.
  keepEndpoint(home, { port: Number(new URL(listening.url).port), token: server.token });
  let closed = false;
  return {
    core,
    server,
    url: listening.url,
    wsUrl: listening.wsUrl,
    personLink: () => personLinkUrl(listening.url, server.token, core.personLinks.code()),
    close: async () => {
      if (closed) return;
      closed = true;
      removeCoreFile(core.home);
      // First: MCP calls still running are ended and answered (the HTTP server would otherwise wait for them).
      await mcp?.then(
        (m) => m.close(),
        () => undefined,
      );
      await server.close();
      await core.close();
      profile.release();
    },
  };
}
