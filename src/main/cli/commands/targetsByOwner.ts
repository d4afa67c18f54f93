// `targets drain|remove --provider P --owner-id O [--dry-run]` without a name: every target of that owner at once,
// in one registry transaction, one line per target.
import type { Command } from 'commander';
import { SwitchboardError } from '../../../shared/errors.js';
import type { EntryResult, RegistryChange } from '../../core/registry/index.js';
import { openRegistry, type RequesterOptions } from './targetsRegistry.js';
import { report } from './targetsRegisterFrom.js';

export interface OwnerOptions extends RequesterOptions {
  generation?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** Without a name: what `--provider/--owner-id` own, or one line saying what to pass. */
export async function byOwner(verb: 'drain' | 'remove', opts: OwnerOptions, cmd: Command): Promise<void> {
  if (cmd.getOptionValueSource('provider') === 'default' && opts.ownerId === undefined)
    throw new SwitchboardError(
      'bad_request',
      `name the target to ${verb}`,
      `or pass --provider P --owner-id O to ${verb} every target of that owner (--dry-run shows which)`,
    );
  if (opts.generation !== undefined)
    throw new SwitchboardError('bad_request', `--generation names one target's generation; give its name too`);
  const registry = openRegistry();
  let results: EntryResult[];
  try {
    results = await registry.forOwner(verb, { provider: opts.provider, owner_id: opts.ownerId, dryRun: opts.dryRun });
  } finally {
    registry.close();
  }
  const owner = `provider "${opts.provider}"${opts.ownerId ? ` owner "${opts.ownerId}"` : ' (no owner id)'}`;
  if (results.length === 0 && !opts.json) {
    process.stdout.write(`no runtime targets of ${owner}\n`);
    return;
  }
  if (opts.dryRun && !opts.json) {
    for (const r of results)
      process.stdout.write(r.ok ? `${wouldLine(verb, r.change)}\n` : `would fail on "${r.name}"\n`);
    process.stdout.write(`dry run: nothing was changed (${results.length} targets of ${owner})\n`);
    return;
  }
  report(
    results.map((result) => ({ where: result.ok ? result.change.record.name : result.name, result })),
    opts.json,
    opts.dryRun,
  );
}

function wouldLine(verb: 'drain' | 'remove', c: RegistryChange): string {
  const r = c.record;
  if (c.action === 'unchanged') return `"${r.name}" (generation ${r.generation}) is already ${r.state}`;
  return `would ${verb} "${r.name}" (${r.spec.backend}, generation ${r.generation})`;
}

/** The options the name-less form adds to a drain or remove command. */
export function ownerOptions(cmd: Command): Command {
  return cmd.option('--dry-run', 'with --provider/--owner-id and no name: list what would change, change nothing');
}
