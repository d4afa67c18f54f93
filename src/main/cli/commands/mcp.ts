// `switchboard mcp`: a stdio MCP server bridged to the running Core; stdout carries MCP messages only.
import type { Command } from 'commander';
import type { Readable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { SwitchboardError } from '../../../shared/errors.js';
import type { CoreClient } from '../../../shared/client.js';
import type { ToolResult } from '../../../shared/tools.js';
import type { ProgressNote } from '../../../shared/api.js';
import { switchboardHome } from '../../core/home.js';
import { afterWork } from '../../core/afterLargeRequest.js';
import { createMcpServer } from '../../core/mcp/mcpServer.js';
import { readCoreFile } from '../../transport/coreFile.js';
import { connectCore } from '../../transport/wsLink.js';
import { action, keepRunning } from '../output.js';
import type { InitializeTemplate, McpHandover } from '../mcpFront.js';

/**
 * A connection to the Core that is re-made (from core.json) for the next call after it was lost; a call is never
 * retried. The first connection is opened at start but not waited for: MCP's initialize is answered meanwhile, and a
 * connection that fails is reported by the tool call that needed it, as after a lost connection.
 */
class CoreBridge {
  private conn: Promise<{ client: CoreClient; close: () => void }> | undefined;
  /** Calls in flight: when the client closes stdin, their answers are still written before exit. */
  readonly inFlight = new Set<Promise<unknown>>();

  /** Throws no_core when no Core runs (no core.json, or its process is gone): `switchboard mcp` fails at start then. */
  static open(): CoreBridge {
    const b = new CoreBridge();
    void b.connection().catch(() => undefined); // connecting early only warms up; the first call reports a failure
    return b;
  }

  private connection(): Promise<CoreClient> {
    if (!this.conn) {
      const info = readCoreFile(switchboardHome());
      const conn = connectCore(info.ws_url, info.token);
      this.conn = conn;
      // A connection that could not be made is tried again by the next call.
      conn.catch(() => {
        if (this.conn === conn) this.conn = undefined;
      });
    }
    return this.conn.then((c) => c.client);
  }

  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    progress?: (note: ProgressNote) => void,
  ): Promise<ToolResult> {
    const p = this.send(tool, args, signal, progress);
    this.inFlight.add(p);
    // The caller awaits p and sees its error; this only tracks it.
    void p
      .catch(() => undefined)
      .finally(() => {
        this.inFlight.delete(p);
        // The bridge lives as long as its agent: what a burst of calls grew is given back when they stop.
        afterWork();
      });
    return p;
  }

  private async send(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    progress?: (note: ProgressNote) => void,
  ): Promise<ToolResult> {
    const client = await this.connection();
    try {
      // The Core's progress, passed on as the MCP client's notifications/progress, when it gave a progressToken.
      return progress
        ? await client.call(
            'tool.call',
            { tool, args, client: 'mcp', progress: true },
            { signal, onProgress: progress },
          )
        : await client.call('tool.call', { tool, args, client: 'mcp' }, { signal });
    } catch (err) {
      if (err instanceof SwitchboardError && err.code === 'no_core') this.close();
      throw err;
    }
  }

  close(): void {
    void this.conn?.then(
      (c) => c.close(),
      () => undefined,
    );
    this.conn = undefined;
  }
}

/** stdio, except that the answer to the initialize the front (mcpFront.ts) answered already is not written again. */
class StdioAfterFront extends StdioServerTransport {
  constructor(
    input: Readable,
    private answered: RequestId | undefined,
  ) {
    super(input, process.stdout);
  }

  override send(message: JSONRPCMessage): Promise<void> {
    // Told apart by its id and its kind: an unknown method is answered at once, ahead of the requests before it.
    if (
      this.answered !== undefined &&
      'result' in message &&
      message.id === this.answered &&
      'serverInfo' in message.result
    ) {
      this.answered = undefined;
      return Promise.resolve();
    }
    return super.send(message);
  }
}

/** Serve MCP on stdin and stdout, or on what the front hands over (the command's action, or mcpFront.ts). */
export const serveMcp = action(async (handover: McpHandover = { input: process.stdin }): Promise<void> => {
  // Fails here, before any MCP traffic, with one stderr line and exit 1 when no Core runs.
  const bridge = CoreBridge.open();
  const server = createMcpServer((tool, args, signal, progress) => bridge.call(tool, args, signal, progress));
  const transport = new StdioAfterFront(handover.input, handover.answered);
  server.onclose = () => {
    bridge.close();
    process.exit(0);
  };
  handover.input.once('end', () => {
    void Promise.allSettled([...bridge.inFlight])
      .then(() => new Promise((r) => setTimeout(r, 50)))
      .then(() => server.close());
  });
  keepRunning();
  await server.connect(transport);
});

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the tools over MCP on stdio, bridged to the running Core (for Claude Code, Codex, Cursor)')
    .action(() => serveMcp());
}

/**
 * What the front needs to answer initialize as the Server does, read from a real Server: scripts/build.mjs builds
 * it into the front, so that it follows the SDK and createMcpServer (mcpFront.test.ts compares the two answers).
 */
export async function initializeTemplate(): Promise<InitializeTemplate> {
  const server = createMcpServer(() => Promise.reject(new Error('not called')));
  const answered = new Promise<JSONRPCMessage>((resolve) => {
    const transport: Transport = {
      start: async () => undefined,
      close: async () => undefined,
      send: async (m) => resolve(m),
    };
    void server.connect(transport).then(() =>
      // No version the SDK supports: the answer names the latest.
      transport.onmessage?.({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '', capabilities: {}, clientInfo: { name: 'build', version: '0' } },
      }),
    );
  });
  const answer = await answered;
  await server.close();
  if (!('result' in answer)) throw new Error(`the MCP Server refused initialize: ${JSON.stringify(answer)}`);
  return { supported: [...SUPPORTED_PROTOCOL_VERSIONS], result: answer.result as InitializeTemplate['result'] };
}
