// Entry of the `switchboard` binary: runs the one bundle built for the named command, compiled from V8's code cache.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBundle } from './bundleLoader.js';
import { commandNames, namedCommand, type CommandName } from './commandNames.js';
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

if (process.argv.length === 3 && process.argv[2] === 'mcp') {
  // An agent's client starts `switchboard mcp` and waits for it: the Perl relay, without the program, commander or
  // zod. Imported here only, so that no other command loads node:child_process for it.
  void import('./perlRelay.js').then(({ runMcpRelay }) => runMcpRelay());
} else {
  // The whole --help (or an unknown command's error) needs every command: the first bundle's program takes them all.
  void bundle(namedCommand(process.argv) ?? commandNames[0]).runProgram(
    process.argv,
    (name) => bundle(name).addCommand,
  );
}
