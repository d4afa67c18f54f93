// The face of core/mcp: what other folders may import from it (docs/architecture.md).
export type { McpHttp } from './mcpHttp.js';
export { mcpTools } from './mcpServer.js';
