// `switchboard targets remove NAME [--generation G]`: unregister a runtime target (only generation G when given).
import type { Command } from 'commander';
import { action } from '../output.js';
import { openRegistry, reportChange, requesterOptions, type RequesterOptions } from './targetsRegistry.js';

export function targetsRemoveCommand(targets: Command): void {
  const cmd = targets
    .command('remove')
    .alias('unregister')
    .description('remove a runtime target; panes and processes already running on it stay until they end')
    .argument('<name>', 'the target name');
  requesterOptions(cmd, 'remove only this generation (a stale teardown cannot remove a replacement)');
  cmd.action(
    action(async (name: string, opts: RequesterOptions & { generation?: string; json?: boolean }) => {
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
