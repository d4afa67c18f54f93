// The `switchboard` command: every subcommand is a module of its own under commands/.
import { Command } from 'commander';
import { serveCommand } from './commands/serve.js';
import { callCommand } from './commands/call.js';
import { mcpCommand } from './commands/mcp.js';
import { targetsListCommand } from './commands/targetsList.js';
import { targetsShowCommand } from './commands/targetsShow.js';
import { targetsRegisterCommand } from './commands/targetsRegister.js';
import { targetsDrainCommand } from './commands/targetsDrain.js';
import { targetsRemoveCommand } from './commands/targetsRemove.js';
import { approvalsCommand } from './commands/approvals.js';
import { doctorCommand } from './commands/doctor.js';
import { pluginsCommand } from './commands/plugins.js';

export function buildProgram(): Command {
  const program = new Command('switchboard')
    .description('route commands and file operations to named execution targets')
    .version('0.1.0')
    // A usage mistake is one line, like every other error.
    .configureOutput({ outputError: (s, write) => write(`switchboard: ${s.trim().replace(/^error: /, '')} (see --help)\n`) });
  program.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
  serveCommand(program);
  callCommand(program);
  mcpCommand(program);
  const targets = program.command('targets').description('list, register, drain and remove execution targets');
  targetsListCommand(targets);
  targetsShowCommand(targets);
  targetsRegisterCommand(targets);
  targetsDrainCommand(targets);
  targetsRemoveCommand(targets);
  approvalsCommand(program);
  doctorCommand(program);
  pluginsCommand(program);
  return program;
}
