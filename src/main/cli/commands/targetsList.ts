// `switchboard targets list|show`: config and runtime targets, from the running Core or straight from the files.
import type { Command } from 'commander';
import type { TargetInfo } from '../../../shared/targets.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { switchboardHome } from '../../core/platform/index.js';
import { builtinSpec, builtinSpecSchemas } from '../../core/backends/index.js';
import { ConfigStore } from '../../core/config/index.js';
import { Registry } from '../../core/registry/index.js';
import { TargetTable } from '../../core/targets/index.js';
import { readCoreFile } from '../../transport/coreFile.js';
import { withCore } from '../connect.js';
import { action, printJson, table } from '../output.js';
import { sandboxLine } from '../../core/sandbox/index.js';

/** What list and show print: the targets, what could not be used, and whether a running Core said so. */
export interface TargetsView {
  targets: TargetInfo[];
  problems: string[];
  /** False when no Core runs: the files as stored, no cwd tracking, no reachability. */
  live: boolean;
}

/** The running Core's view when there is one (it knows cwd and reachability), else the files'. Never starts a Core. */
export async function loadTargets(home = switchboardHome()): Promise<TargetsView> {
  try {
    readCoreFile(home);
    const [targets, coreProblems] = await withCore((c) =>
      Promise.all([c.call('targets.list', {}), c.call('targets.problems', {})]),
    );
    // The Core knows what it could not use (a broken config edit it kept the last good config over); the registry
    // file's own problems are read here too, once each.
    return { targets, problems: [...new Set([...coreProblems, ...registryProblems(home, targets)])], live: true };
  } catch (err) {
    if (!(err instanceof SwitchboardError) || err.code !== 'no_core') throw err;
  }
  return storedTargets(home);
}

/** Without a Core: config.yaml and the registry read through their libraries; no backend is contacted. */
export function storedTargets(home: string): TargetsView {
  // A broken config.yaml throws here, as it stops a Core from starting.
  const config = new ConfigStore(home, builtinSpecSchemas);
  const runtime = new Registry(home);
  try {
    const targets = new TargetTable(config, runtime, builtinSpec);
    return { targets: targets.list(() => ({})), problems: targets.problems(), live: false };
  } finally {
    runtime.close();
    config.close();
  }
}

/** The one stderr line that says the view is not live (a --json document carries `live: false` instead). */
export function noteNotLive(view: TargetsView, json: boolean | undefined): void {
  if (!view.live && !json)
    process.stderr.write(
      'switchboard: no Core is running; showing config.yaml and the registry as stored (state is not live)\n',
    );
}

/**
 * With a running Core, the registry's own problems and the runtime names a config target withholds, read from the file.
 */
function registryProblems(home: string, targets: TargetInfo[]): string[] {
  const registry = new Registry(home);
  try {
    const problems = registry.problems();
    for (const r of registry.list()) {
      const shown = targets.find((t) => t.name === r.name);
      if (shown?.source === 'config')
        problems.push(`runtime target "${r.name}" (provider ${r.provider}) is withheld: a config target has that name`);
    }
    return problems;
  } finally {
    registry.close();
  }
}

/** Where a target points, as its backend describes it ('' for an unknown backend). */
export function describeTarget(t: TargetInfo): string {
  return builtinSpec(t.backend)?.describe(t.spec) ?? '';
}

export function targetsListCommand(targets: Command): void {
  targets
    .command('list')
    .alias('ls')
    .description('list config and runtime targets')
    .option('--json', 'one JSON document')
    .action(
      action(async (opts: { json?: boolean }) => {
        const view = await loadTargets();
        const { targets: list, problems } = view;
        noteNotLive(view, opts.json);
        if (opts.json) return printJson({ targets: list, problems, live: view.live });
        const rows = list.map((t) => [
          (t.is_default ? '* ' : '  ') + t.name,
          t.backend,
          describeTarget(t),
          t.source,
          t.state,
          t.health ? healthWord(t.health.status) : '-',
          t.generation,
          t.cwd ?? '',
          t.sandbox ? sandboxLine(t.sandbox) : '-',
        ]);
        process.stdout.write(
          table(['  NAME', 'BACKEND', 'WHERE', 'SOURCE', 'STATE', 'HEALTH', 'GENERATION', 'CWD', 'SANDBOX'], rows),
        );
        for (const p of problems) process.stderr.write(`switchboard: warning: ${p}\n`);
        for (const t of list) if (t.cwd_problem) process.stderr.write(`switchboard: warning: ${t.cwd_problem}\n`);
      }),
    );
}

/** A health status as words ("not checked yet" for a target whose backend has no probe that costs nothing). */
export function healthWord(status: NonNullable<TargetInfo['health']>['status']): string {
  return status === 'unchecked' ? 'not checked yet' : status;
}
