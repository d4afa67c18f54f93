// `switchboard targets drain NAME`: refuse new calls and panes on a runtime target; running work goes on.
import type { Command } from 'commander';
import { action } from '../output.js';
import { openRegistry, reportChange, requesterOptions, type RequesterOptions } from './targetsRegistry.js';

export function targetsDrainCommand(targets: Command): void {
  const cmd = targets
    .command('drain')
    .description('stop new calls and panes on a runtime target; terminals and background work already running go on')
    .argument('<name>', 'the target name');
  requesterOptions(cmd, 'drain only this generation');
  cmd.action(
    action(async (name: string, opts: RequesterOptions & { generation?: string; json?: boolean }) => {
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
