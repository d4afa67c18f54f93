// The `switchboard` program: commander with the named command (or, for help, every command) added, run to the end.
import { Command } from 'commander';
import { commandNames, namedCommand, type CommandName } from './commandNames.js';
import { exitWhenFlushed, fail, isLongRunning } from './output.js';

/** What a command's module exports: the function that adds the command to the program. */
export type AddCommand = (program: Command) => void;

/**
 * Run `argv` (process.argv). `addCommand(name)` gives the named command's adder; main.ts loads it from that command's
 * own bundle, so one run loads one command's code (every command's only for the whole --help or an unknown command).
 */
export async function runProgram(
  argv: readonly string[],
  addCommand: (name: CommandName) => AddCommand,
): Promise<void> {
  try {
    const program = new Command('switchboard')
      .description('route commands and file operations to named execution targets')
      .version('0.1.0')
      // A usage mistake is one line, like every other error.
      .configureOutput({
        outputError: (s, write) => write(`switchboard: ${s.trim().replace(/^error: /, '')} (see --help)\n`),
      });
    program.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
    const named = namedCommand(argv);
    for (const name of named ? [named] : commandNames) addCommand(name)(program);
    await program.parseAsync([...argv]);
    // One-shot commands end here; idle SSH connections or file watchers must not hold the shell prompt.
    if (!isLongRunning()) exitWhenFlushed();
  } catch (err) {
    fail(err);
  }
}
