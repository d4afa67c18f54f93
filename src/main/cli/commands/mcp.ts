// `switchboard mcp`: MCP on stdio, relayed to the running Core by bin/mcp-relay.pl; stdout carries MCP messages only.
// A plain `switchboard mcp` runs the relay straight from main.ts (or bin/switchboard), without this program.
import type { Command } from 'commander';
import { runMcpRelay } from '../perlRelay.js';

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the tools over MCP on stdio, bridged to the running Core (for Claude Code, Codex, Cursor)')
    .action(() => runMcpRelay());
}
