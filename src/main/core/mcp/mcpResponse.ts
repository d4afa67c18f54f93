// What /mcp answers to and for whom, apart from HTTP: node:http's ServerResponse is one McpResponse, a line of an
// upgraded connection (lineSession.ts) the other.

/**
 * What the /mcp handler writes an answer to: node:http's ServerResponse, or a message line of an upgraded connection
 * (lineSession.ts), which answers each line as the POST of it would be answered.
 */
export interface McpResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  writeHead(status: number, headers?: Record<string, string | number>): McpResponse;
  write(chunk: string): unknown;
  end(chunk?: string | Buffer): unknown;
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/** Who sent a message: its client (Mcp-Session-Id, or a line connection's own), and the protocol version it named. */
export interface McpClient {
  id: string;
  version?: string;
}

/** A refusal as the MCP SDK's transport writes it: the HTTP status, and JSON-RPC's error with id null. */
export function jsonError(res: McpResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
