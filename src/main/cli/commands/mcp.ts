// `switchboard mcp`: MCP on stdio, relayed to the running Core's own MCP endpoint (mcpRelay.ts); stdout carries MCP
// messages only. A plain `switchboard mcp` goes to the relay straight from main.ts, without this program (commander).
import type { Command } from 'commander';
import { serveMcp } from '../mcpRelay.js';

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the tools over MCP on stdio, bridged to the running Core (for Claude Code, Codex, Cursor)')
    .action(() => serveMcp());
}
