// `switchboard targets show NAME`: one target in full (routing fields only), with its problems.
import type { Command } from 'commander';
import { SwitchboardError } from '../../../shared/errors.js';
import type { TargetInfo } from '../../../shared/targets.js';
import { didYouMean } from '../../core/platform/index.js';
import { action, printJson, table } from '../output.js';
import { describeTarget, healthWord, loadTargets, noteNotLive } from './targetsList.js';
import { sandboxLine } from '../../core/sandbox/index.js';

/** The rows of the human view: label, value. */
export function showRows(t: TargetInfo, problems: string[]): string[][] {
  const rows: string[][] = [
    ['name', t.name + (t.is_default ? ' (default)' : '')],
    ['backend', t.backend],
  ];
  const where = describeTarget(t);
  if (where) rows.push(['where', where]);
  rows.push(['source', t.source], ['state', t.state], ['generation', t.generation]);
  if (t.provider) rows.push(['provider', t.provider], ['owner', t.owner_id || '-']);
  if (t.cwd) rows.push(['cwd', t.cwd]);
  if (t.sandbox) rows.push(['sandbox', sandboxLine(t.sandbox)]);
  if (t.sandbox?.confinement) rows.push(['confined', t.sandbox.confinement]);
  if (t.sandbox?.hint) rows.push(['to hold it in', t.sandbox.hint]);
  if (t.created_at) rows.push(['registered', t.created_at]);
  if (t.updated_at) rows.push(['updated', t.updated_at]);
  for (const [k, v] of Object.entries(t.spec))
    if (k !== 'backend') rows.push([`spec.${k}`, typeof v === 'string' ? v : JSON.stringify(v)]);
  if (t.health)
    rows.push([
      'health',
      [healthWord(t.health.status), t.health.checked_at ? `checked ${t.health.checked_at}` : '', t.health.detail ?? '']
        .filter(Boolean)
        .join(', '),
    ]);
  if (t.problem) rows.push(['problem', t.problem]);
  if (t.cwd_problem) rows.push(['problem', t.cwd_problem]);
  for (const p of problems) rows.push(['problem', p]);
  return rows;
}

export function targetsShowCommand(targets: Command): void {
  targets
    .command('show')
    .description('show one target: source, state, generation, owner and routing fields')
    .argument('<name>', 'the target name')
    .option('--json', 'one JSON document')
    .action(
      action(async (name: string, opts: { json?: boolean }) => {
        const view = await loadTargets();
        const { targets: list, problems } = view;
        const target = list.find((t) => t.name === name);
        const mine = problems.filter((p) => p.includes(`"${name}"`));
        if (!target) {
          const guess = didYouMean(
            name,
            list.map((t) => t.name),
          );
          throw new SwitchboardError(
            'unknown_target',
            mine[0] ?? `unknown target "${name}"${guess ? ` — did you mean "${guess}"?` : ''}`,
            mine[0] ? undefined : `known targets: ${list.map((t) => t.name).join(', ') || 'none'}`,
          );
        }
        noteNotLive(view, opts.json);
        if (opts.json) return printJson({ target, problems: mine, live: view.live });
        const text = table(['', ''], showRows(target, mine));
        // The header row of two empty cells is blank; drop it.
        process.stdout.write(text.split('\n').slice(1).join('\n'));
      }),
    );
}
