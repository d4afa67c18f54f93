// `switchboard targets drain NAME`: refuse new calls and panes on a runtime target; running work goes on.
import type { Command } from 'commander';
import { action } from '../output.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { openRegistry, reportChange, requesterOptions } from './targetsRegistry.js';
import { byOwner, ownerOptions, type OwnerOptions } from './targetsByOwner.js';

export function targetsDrainCommand(targets: Command): void {
  const cmd = targets
    .command('drain')
    .description('stop new calls and panes on a runtime target; terminals and background work already running go on')
    .argument('[name]', 'the target name (none: every target of --provider/--owner-id)');
  ownerOptions(cmd);
  requesterOptions(cmd, 'drain only this generation');
  cmd.action(
    action(async (name: string | undefined, opts: OwnerOptions, cmd: Command) => {
      if (name === undefined) return byOwner('drain', opts, cmd);
      if (opts.dryRun)
        throw new SwitchboardError('bad_request', '--dry-run goes with --provider/--owner-id and no name');
      const registry = openRegistry();
      try {
        reportChange(
          await registry.drain({ name, provider: opts.provider, owner_id: opts.ownerId, generation: opts.generation }),
          opts.json,
        );
      } finally {
        registry.close();
      }
    }),
  );
}
