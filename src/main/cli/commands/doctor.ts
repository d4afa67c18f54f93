// `switchboard doctor`: asks the running Core (it probes every target); without one it says so and checks the files.
import type { Command } from 'commander';
import { SwitchboardError, toErrorPayload } from '../../../shared/errors.js';
import { builtinSpecs, type OrphanInfo } from '../../core/backends/index.js';
import { ConfigStore } from '../../core/config/index.js';
import { installedPlugins, offlineSpecSchemas, readEnabled } from '../../core/plugins/index.js';
import { switchboardHome } from '../../core/platform/index.js';
import { Registry } from '../../core/registry/index.js';
import { TargetTable } from '../../core/targets/index.js';
import { coreRunning, withCore } from '../connect.js';
import { sandboxLine } from '../../core/sandbox/index.js';
import { action, printJson, table } from '../output.js';
import { runtimeIdentity, type TargetSpec } from '../../../shared/targets.js';

export const NO_CORE_LINE =
  'no Switchboard Core is running: target health is not checked (start one with `switchboard serve` or `npm start`)';

/**
 * What can be said without a Core: config.yaml and runtime-targets.json problems, read through their libraries; and
 * every target by identity (`complete` false when config.yaml could not be read, so the list may miss some).
 */
function readProfile(home: string): { problems: string[]; specs: Map<string, TargetSpec>; complete: boolean } {
  const providers = new Map(builtinSpecs.map((p) => [p.backend, p]));
  let config: ConfigStore;
  try {
    config = new ConfigStore(home, () =>
      offlineSpecSchemas(home, new Map([...providers].map(([k, p]) => [k, p.specSchema]))),
    );
  } catch (err) {
    return { problems: [toErrorPayload(err).message], specs: new Map(), complete: false };
  }
  const registry = new Registry(home);
  try {
    const table = new TargetTable(config, registry, (b) => providers.get(b));
    const specs = new Map(
      table
        .list(() => ({}))
        .map((t) => [runtimeIdentity(t.name, t.generation), { ...t.spec, backend: t.backend }] as const),
    );
    return { problems: table.problems(), specs, complete: config.problem === undefined };
  } finally {
    registry.close();
    config.close();
  }
}

function fileProblems(home: string): string[] {
  return readProfile(home).problems;
}

function humanSize(bytes: number | undefined): string {
  if (bytes === undefined) return '?';
  const units = ['B', 'KB', 'MB', 'GB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return `${u === 0 ? n : n.toFixed(1)}${units[u]}`;
}

function humanAge(iso: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

/**
 * Orphans of every backend that can tell them (Docker: managed containers of a deleted profile or a gone target), read
 * here rather than through the Core: they are found from the profile's files and the engines, Core or not.
 */
async function orphans(
  home: string,
  clean: boolean,
  say: (line: string) => void,
): Promise<{ orphans: OrphanInfo[]; problems: string[]; removed?: string[] }> {
  const profile = readProfile(home);
  const all: OrphanInfo[] = [];
  const problems: string[] = [];
  const removers: (() => Promise<string[]>)[] = [];
  // Loaded here only: the backends' libraries are not for every command of the CLI.
  const { builtinProviders } = await import('../../core/backends/builtins.js');
  for (const p of builtinProviders) {
    const r = await p.orphans?.(home, profile.specs, profile.complete);
    if (!r) continue;
    all.push(...r.orphans);
    problems.push(...r.problems);
    removers.push(r.remove);
  }
  if (!profile.complete)
    problems.push(
      'config.yaml could not be read: containers of this profile are not judged (only those of deleted profiles)',
    );
  if (!clean) return { orphans: all, problems };
  say(
    all.length
      ? `removing ${all.length} orphan container(s): ${all.map((o) => o.name).join(', ')}`
      : 'no orphan containers to remove',
  );
  const removed: string[] = [];
  for (const remove of removers) removed.push(...(await remove()));
  for (const r of removed) say(`removed ${r}`);
  return { orphans: all, problems, removed };
}

function printOrphans(list: OrphanInfo[]): void {
  if (list.length === 0) return;
  process.stdout.write(
    `\norphan containers (their profile or target is gone)\n${table(
      ['NAME', 'PROFILE', 'TARGET', 'AGE', 'SIZE', 'ENGINE', 'WHY'],
      list.map((o) => [o.name, o.profile, o.target, humanAge(o.created_at), humanSize(o.size_bytes), o.where, o.why]),
    )}`,
  );
  process.stdout.write('remove them with `switchboard doctor --clean-orphans`\n');
}

export function doctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check backends, config, the runtime registry and every target (through the running Core)')
    .option('--timeout <seconds>', 'deadline per target', '5')
    .option('--json', 'one JSON document')
    .option('--clean-orphans', 'remove managed containers whose profile or target is gone (after listing them)')
    .action(
      action(async (opts: { timeout: string; json?: boolean; cleanOrphans?: boolean }) => {
        const secs = Number(opts.timeout);
        if (!(secs > 0 && secs <= 60)) throw new SwitchboardError('bad_request', '--timeout must be 1-60 seconds');
        const home = switchboardHome();
        const clean = opts.cleanOrphans === true;
        // With --json the removal is told in the document; otherwise each line as it happens, before the report.
        const left = await orphans(home, clean, (line) => {
          if (!opts.json) process.stdout.write(`${line}\n`);
        });
        const orphanJson = {
          ...(left.orphans.length ? { orphans: left.orphans } : {}),
          ...(left.removed ? { removed: left.removed } : {}),
        };
        if (!coreRunning(home)) {
          const problems = fileProblems(home);
          // Plugins as installed and enabled; whether they load is known only to a Core.
          const enabled = new Set(readEnabled(home).enabled);
          const plugins = installedPlugins(home).map((p) => ({
            name: p.name,
            ...(p.manifest ? { version: p.manifest.version } : {}),
            enabled: enabled.has(p.name),
            ...(p.problem ? { problem: p.problem } : {}),
          }));
          problems.push(...left.problems);
          if (opts.json)
            printJson({ core: 'not running', home, problems, ...(plugins.length ? { plugins } : {}), ...orphanJson });
          else {
            process.stdout.write(`${NO_CORE_LINE}\n`);
            if (!clean) printOrphans(left.orphans);
            for (const p of plugins) {
              const problem = p.problem ? ` — ${p.problem}` : '';
              process.stdout.write(
                `plugin: ${p.name} ${p.version ?? '?'} ${p.enabled ? 'enabled' : 'disabled'}${problem}\n`,
              );
            }
            for (const p of problems) process.stdout.write(`problem: ${p}\n`);
          }
          if (plugins.some((p) => p.problem && p.enabled)) process.exitCode = 1;
          if (problems.length > 0) process.exitCode = 1;
          return;
        }
        const r = await withCore((c) => c.call('doctor.run', { timeout_ms: secs * 1000 }));
        r.problems.push(...left.problems);
        if (opts.json) return printJson({ core: 'running', ...r, ...orphanJson });
        process.stdout.write(
          `profile  ${r.home}\ncore     running\nbackends ${r.backends.map((b) => b.backend).join(', ')}\n\n`,
        );
        process.stdout.write(
          table(
            ['TARGET', 'BACKEND', 'SOURCE', 'STATE', 'HEALTH', 'TIME', 'SANDBOX', 'DETAIL'],
            r.targets.map((t) => [
              t.name,
              t.backend,
              t.source,
              t.state,
              t.ok ? 'ok' : 'FAIL',
              `${t.ms}ms`,
              t.sandbox ? sandboxLine(t.sandbox) : '-',
              (t.ok ? t.detail : t.problem) ?? '',
            ]),
          ),
        );
        if (r.plugins?.length) {
          process.stdout.write(
            `\n${table(
              ['PLUGIN', 'VERSION', 'STATE', 'AVAILABLE', 'BACKENDS', 'PROBLEM'],
              r.plugins.map((p) => [
                p.name,
                p.version ?? '',
                p.state,
                p.available === undefined ? '-' : p.available ? 'yes' : 'NO',
                p.backends.join(','),
                p.problem ?? '',
              ]),
            )}`,
          );
          for (const p of r.plugins) {
            for (const c of p.checks)
              process.stdout.write(
                `check ${p.name}: ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? ` — ${c.detail}` : ''}\n`,
              );
            for (const q of p.requirements) process.stdout.write(`requirement ${p.name}: ${q}\n`);
          }
        }
        if (!clean) printOrphans(left.orphans);
        for (const w of r.warnings ?? []) process.stdout.write(`warning: ${w}\n`);
        for (const p of r.problems) process.stdout.write(`problem: ${p}\n`);
        if (r.targets.some((t) => !t.ok) || r.problems.length > 0) process.exitCode = 1;
      }),
    );
}
