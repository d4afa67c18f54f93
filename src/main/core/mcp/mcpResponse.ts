// What /mcp answers to and for whom: the part of node:http's ServerResponse the handler writes to, and its client.

/** What the /mcp handler writes an answer to: the part of node:http's ServerResponse it uses. */
export interface McpResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  writeHead(status: number, headers?: Record<string, string | number>): McpResponse;
  write(chunk: string): unknown;
  end(chunk?: string | Buffer): unknown;
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/** Who sent a message: its client (its Mcp-Session-Id, '' without one), and the protocol version it named. */
export interface McpClient {
  id: string;
  version?: string;
}

/**
 * A refusal as the MCP SDK's transport writes it: the HTTP status, and JSON-RPC's error; `id` is the refused request's
 * own when it could be read (JSON-RPC answers with null only when it could not).
 */
export function jsonError(
  res: McpResponse,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): void {
  if (res.headersSent) return;
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}
