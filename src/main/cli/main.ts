// Entry of the `switchboard` binary: runs the one bundle built for the named command, compiled from V8's code cache.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { loadBundle } from './bundleLoader.js';
import { commandNames, mcpBridgeArgs, namedCommand, type CommandName } from './commandNames.js';
import type { runMcpBridge } from './bridge/mcpBridge.js';
import type { AddCommand, runProgram } from './program.js';

/**
 * What scripts/build.mjs makes of each command: one file with the command, the program and every library they use
 * (zod, ws, commander …) inside, so `switchboard call` reads and compiles one file, not a hundred.
 */
interface CommandBundle {
  addCommand: AddCommand;
  runProgram: typeof runProgram;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const bundle = (name: CommandName): CommandBundle => loadBundle(join(here, 'commands', `${name}.cjs`)) as CommandBundle;

const bridge = mcpBridgeArgs(process.argv);
if (bridge) {
  // An agent's client starts `switchboard mcp` and keeps it for as long as the agent lives: the bridge's own bundle,
  // without the program, commander or zod. It moves messages (JSON's parse and stringify are V8's own), so it runs
  // without V8's optimizing compilers: their code in the node binary is not paged in, about 4 MB of the bridge's RSS.
  // Set before the bundle loads, so its code cache is made and taken under the same flags.
  setFlagsFromString('--no-opt');
  setFlagsFromString('--no-sparkplug');
  (loadBundle(join(here, 'mcpBridge.cjs')) as { runMcpBridge: typeof runMcpBridge }).runMcpBridge(bridge);
} else {
  // The whole --help (or an unknown command's error) needs every command: the first bundle's program takes them all.
  void bundle(namedCommand(process.argv) ?? commandNames[0]).runProgram(
    process.argv,
    (name) => bundle(name).addCommand,
  );
}
