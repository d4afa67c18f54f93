// `switchboard mcp`: MCP on stdio, bridged to the running Core (cli/bridge/mcpBridge.ts); stdout carries MCP messages
// only. The launcher (main.ts) runs the bridge's bundle itself for `mcp [--profile PATH]`: this program answers help.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { loadBundle } from '../bundleLoader.js';
import type { runMcpBridge } from '../bridge/mcpBridge.js';
import { keepRunning } from '../output.js';

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the tools over MCP on stdio, bridged to the running Core (for Claude Code, Codex, Cursor)')
    .option('--profile <path>', 'the profile whose Core to bridge to (default: $SWITCHBOARD_HOME, or ~/.switchboard)')
    .action((opts: { profile?: string }) => {
      keepRunning();
      // The bridge is a bundle of its own beside this one's folder (out/cli/mcpBridge.cjs).
      const file = join(fileURLToPath(new URL('..', import.meta.url)), 'mcpBridge.cjs');
      (loadBundle(file) as { runMcpBridge: typeof runMcpBridge }).runMcpBridge(opts);
    });
}
