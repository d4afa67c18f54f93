// `switchboard mcp`: a stdio MCP server bridged to the running Core; stdout carries MCP messages only.
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SwitchboardError } from '../../../shared/errors.js';
import type { CoreClient } from '../../../shared/client.js';
import type { ToolResult } from '../../../shared/tools.js';
import { switchboardHome } from '../../core/home.js';
import { createMcpServer } from '../../core/agent/mcpServer.js';
import { readCoreFile } from '../../transport/coreFile.js';
import { connectCore } from '../../transport/wsLink.js';
import { action, keepRunning } from '../output.js';

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
    void b.connection().catch(() => undefined);
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

  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const p = this.send(tool, args, signal);
    this.inFlight.add(p);
    void p.catch(() => undefined).finally(() => this.inFlight.delete(p));
    return p;
  }

  private async send(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const client = await this.connection();
    try {
      return await client.call('tool.call', { tool, args, client: 'mcp' }, { signal });
    } catch (err) {
      if (err instanceof SwitchboardError && err.code === 'no_core') this.close();
      throw err;
    }
  }

  close(): void {
    void this.conn?.then((c) => c.close(), () => undefined);
    this.conn = undefined;
  }
}

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the tools over MCP on stdio, bridged to the running Core (for Claude Code, Codex, Cursor)')
    .action(action(async () => {
      // Fails here, before any MCP traffic, with one stderr line and exit 1 when no Core runs.
      const bridge = CoreBridge.open();
      const server = createMcpServer((tool, args, signal) => bridge.call(tool, args, signal));
      const transport = new StdioServerTransport();
      server.onclose = () => {
        bridge.close();
        process.exit(0);
      };
      process.stdin.once('end', () => {
        void Promise.allSettled([...bridge.inFlight])
          .then(() => new Promise((r) => setTimeout(r, 50)))
          .then(() => server.close());
      });
      keepRunning();
      await server.connect(transport);
    }));
}
