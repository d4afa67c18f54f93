// `switchboard targets list|show`: config and runtime targets, from the running Core or straight from the files.
import type { Command } from 'commander';
import type { TargetInfo } from '../../../shared/targets.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { Core, switchboardHome } from '../../core/core.js';
import { defaultCoreOptions } from '../../core/defaults.js';
import { Registry } from '../../core/registry/registry.js';
import { readCoreFile } from '../../transport/coreFile.js';
import { withCore } from '../connect.js';
import { action, printJson, table } from '../output.js';

/** The running Core's view when there is one (it knows cwd and reachability), else the files'. */
export async function loadTargets(): Promise<{ targets: TargetInfo[]; problems: string[] }> {
  try {
    readCoreFile(switchboardHome());
    const targets = await withCore((c) => c.call('targets.list', {}));
    return { targets, problems: registryProblems(targets) };
  } catch (err) {
    if (!(err instanceof SwitchboardError) || err.code !== 'no_core') throw err;
  }
  const core = new Core(defaultCoreOptions());
  try {
    return { targets: core.listTargets(), problems: core.targets.problems() };
  } finally {
    await core.close();
  }
}

/** With a running Core, the registry's own problems and the runtime names a config target withholds, read from the file. */
function registryProblems(targets: TargetInfo[]): string[] {
  const registry = new Registry(switchboardHome());
  try {
    const problems = registry.problems();
    for (const r of registry.list()) {
      const shown = targets.find((t) => t.name === r.name);
      if (shown?.source === 'config') problems.push(`runtime target "${r.name}" (provider ${r.provider}) is withheld: a config target has that name`);
    }
    return problems;
  } finally {
    registry.close();
  }
}

export function describeTarget(t: TargetInfo): string {
  const s = t.spec;
  switch (t.backend) {
    case 'ssh':
      return `${s.ssh_user ? `${String(s.ssh_user)}@` : ''}${String(s.ssh_host)}${s.ssh_port ? `:${String(s.ssh_port)}` : ''}`;
    case 'docker':
      return String(s.docker_image ?? s.docker_container ?? '');
    default:
      return '';
  }
}

export function targetsListCommand(targets: Command): void {
  targets
    .command('list')
    .alias('ls')
    .description('list config and runtime targets')
    .option('--json', 'one JSON document')
    .action(action(async (opts: { json?: boolean }) => {
      const { targets: list, problems } = await loadTargets();
      if (opts.json) return printJson({ targets: list, problems });
      const rows = list.map((t) => [
        (t.is_default ? '* ' : '  ') + t.name, t.backend, describeTarget(t), t.source, t.state, t.generation, t.cwd ?? '',
      ]);
      process.stdout.write(table(['  NAME', 'BACKEND', 'WHERE', 'SOURCE', 'STATE', 'GENERATION', 'CWD'], rows));
      for (const p of problems) process.stderr.write(`switchboard: warning: ${p}\n`);
    }));
}
