// The `switchboard` command: every subcommand is a module of its own under commands/, loaded only when it is asked for.
import { Command } from 'commander';

/**
 * Each top-level command and how to add it to the program. A command's module is imported only when that command
 * runs (or for the whole --help), so `switchboard call` or `mcp` never loads the Core, ssh2, dockerode or node-pty.
 * scripts/build.mjs builds each module imported here as a bundle of its own (so one run loads one command's bundle).
 */
const commands: Record<string, (program: Command) => Promise<void>> = {
  serve: async (p) => (await import('./commands/serve.js')).serveCommand(p),
  call: async (p) => (await import('./commands/call.js')).callCommand(p),
  mcp: async (p) => (await import('./commands/mcp.js')).mcpCommand(p),
  targets: async (p) => (await import('./commands/targets.js')).targetsCommand(p),
  approvals: async (p) => (await import('./commands/approvals.js')).approvalsCommand(p),
  doctor: async (p) => (await import('./commands/doctor.js')).doctorCommand(p),
  plugins: async (p) => (await import('./commands/plugins.js')).pluginsCommand(p),
};

/** The program for `argv` (process.argv): the named command's module, or every one when none is named (help). */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('switchboard')
    .description('route commands and file operations to named execution targets')
    .version('0.1.0')
    // A usage mistake is one line, like every other error.
    .configureOutput({ outputError: (s, write) => write(`switchboard: ${s.trim().replace(/^error: /, '')} (see --help)\n`) });
  program.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
  // The first word that is not an option names the command (the top level takes no option with a value).
  const named = argv.slice(2).find((a) => !a.startsWith('-'));
  const wanted = named !== undefined && named in commands ? [named] : Object.keys(commands);
  for (const name of wanted) await commands[name]!(program);
  return program;
}
