// MCP over Streamable HTTP at /mcp on the Core's loopback server (token, Host and Origin are checked before this runs).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ToolResult } from '../../../shared/tools.js';
import { createMcpServer } from './mcpServer.js';

/** Largest JSON-RPC body accepted (a write_file of a few MB fits). */
export const MAX_MCP_BODY_BYTES = 16 * 1024 * 1024;

/** The /mcp route's handler, and what closes the transports still open at shutdown. */
export interface McpHttp {
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Stateless: each POST gets its own Server and transport, so there is no session table to leak or hijack and a
 * Core restart loses nothing a client holds. Tool calls need no server-initiated messages.
 */
export function mcpHttpHandler(callTool: (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>): McpHttp {
  const open = new Set<StreamableHTTPServerTransport>();
  const close = async (): Promise<void> => {
    await Promise.all([...open].map((t) => t.close().catch(() => undefined)));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'application/json', allow: 'POST' }).end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; use POST' }, id: null }),
      );
      return;
    }
    const port = req.socket.localPort ?? 0;
    const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableDnsRebindingProtection: true,
      allowedHosts: hosts,
      allowedOrigins: hosts.map((h) => `http://${h}`),
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      // One JSON body instead of an event stream: nothing is sent before the answer, and it goes out in one write.
      enableJsonResponse: true,
    });
    const server = createMcpServer(callTool);
    open.add(transport);
    res.on('close', () => {
      open.delete(transport);
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: err instanceof Error ? err.message.split('\n')[0] : 'internal error' }, id: null }),
        );
      }
    }
  };
  return { handle, close };
}
