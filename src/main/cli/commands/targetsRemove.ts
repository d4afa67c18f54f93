// `switchboard targets remove NAME [--generation G]`: unregister a runtime target (only generation G when given).
import type { Command } from 'commander';
import { action } from '../output.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { openRegistry, reportChange, requesterOptions } from './targetsRegistry.js';
import { byOwner, ownerOptions, type OwnerOptions } from './targetsByOwner.js';

export function targetsRemoveCommand(targets: Command): void {
  const cmd = targets
    .command('remove')
    .alias('unregister')
    .description('remove a runtime target; panes and processes already running on it stay until they end')
    .argument('[name]', 'the target name (none: every target of --provider/--owner-id)');
  ownerOptions(cmd);
  requesterOptions(cmd, 'remove only this generation (a stale teardown cannot remove a replacement)');
  cmd.action(
    action(async (name: string | undefined, opts: OwnerOptions, cmd: Command) => {
      if (name === undefined) return byOwner('remove', opts, cmd);
      if (opts.dryRun)
        throw new SwitchboardError('bad_request', '--dry-run goes with --provider/--owner-id and no name');
      const registry = openRegistry();
      try {
        reportChange(
          await registry.remove({ name, provider: opts.provider, owner_id: opts.ownerId, generation: opts.generation }),
          opts.json,
        );
      } finally {
        registry.close();
      }
    }),
  );
}
