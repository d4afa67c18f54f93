// `switchboard targets …`: the group and its subcommands, one bundle (program.ts loads it when `targets` runs).
import type { Command } from 'commander';
import { targetsListCommand } from './targetsList.js';
import { targetsShowCommand } from './targetsShow.js';
import { targetsRegisterCommand } from './targetsRegister.js';
import { targetsDrainCommand } from './targetsDrain.js';
import { targetsRemoveCommand } from './targetsRemove.js';

export function targetsCommand(program: Command): void {
  const targets = program.command('targets').description('list, register, drain and remove execution targets');
  targetsListCommand(targets);
  targetsShowCommand(targets);
  targetsRegisterCommand(targets);
  targetsDrainCommand(targets);
  targetsRemoveCommand(targets);
}
