// `switchboard doctor`: asks the running Core (it probes every target); without one it says so and checks the files.
import type { Command } from 'commander';
import { SwitchboardError, toErrorPayload } from '../../../shared/errors.js';
import { builtinSpecs } from '../../core/backends/builtinSpecs.js';
import { ConfigStore } from '../../core/config/configStore.js';
import { installedPlugins, offlineSpecSchemas, readEnabled } from '../../core/plugins/installedPlugins.js';
import { switchboardHome } from '../../core/home.js';
import { Registry } from '../../core/registry/registry.js';
import { TargetTable } from '../../core/registry/targetTable.js';
import { coreRunning, withCore } from '../connect.js';
import { sandboxLine } from '../../core/sandbox/sandbox.js';
import { action, printJson, table } from '../output.js';

export const NO_CORE_LINE = 'no Switchboard Core is running: target health is not checked (start one with `switchboard serve` or `npm start`)';

/** What can be said without a Core: config.yaml and runtime-targets.json problems, read through their libraries. */
function fileProblems(home: string): string[] {
  const providers = new Map(builtinSpecs.map((p) => [p.backend, p]));
  let config: ConfigStore;
  try {
    config = new ConfigStore(home, () => offlineSpecSchemas(home, new Map([...providers].map(([k, p]) => [k, p.specSchema]))));
  } catch (err) {
    return [toErrorPayload(err).message];
  }
  const registry = new Registry(home);
  try {
    return new TargetTable(config, registry, (b) => providers.get(b)).problems();
  } finally {
    registry.close();
    config.close();
  }
}

export function doctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check backends, config, the runtime registry and every target (through the running Core)')
    .option('--timeout <seconds>', 'deadline per target', '5')
    .option('--json', 'one JSON document')
    .action(action(async (opts: { timeout: string; json?: boolean }) => {
      const secs = Number(opts.timeout);
      if (!(secs > 0 && secs <= 60)) throw new SwitchboardError('bad_request', '--timeout must be 1-60 seconds');
      const home = switchboardHome();
      if (!coreRunning(home)) {
        const problems = fileProblems(home);
        // Plugins as installed and enabled; whether they load is known only to a Core.
        const enabled = new Set(readEnabled(home).enabled);
        const plugins = installedPlugins(home).map((p) => ({
          name: p.name, ...(p.manifest ? { version: p.manifest.version } : {}), enabled: enabled.has(p.name), ...(p.problem ? { problem: p.problem } : {}),
        }));
        if (opts.json) printJson({ core: 'not running', home, problems, ...(plugins.length ? { plugins } : {}) });
        else {
          process.stdout.write(`${NO_CORE_LINE}\n`);
          for (const p of plugins) process.stdout.write(`plugin: ${p.name} ${p.version ?? '?'} ${p.enabled ? 'enabled' : 'disabled'}${p.problem ? ` — ${p.problem}` : ''}\n`);
          for (const p of problems) process.stdout.write(`problem: ${p}\n`);
        }
        if (plugins.some((p) => p.problem && p.enabled)) process.exitCode = 1;
        if (problems.length > 0) process.exitCode = 1;
        return;
      }
      const r = await withCore((c) => c.call('doctor.run', { timeout_ms: secs * 1000 }));
      if (opts.json) return printJson({ core: 'running', ...r });
      process.stdout.write(`profile  ${r.home}\ncore     running\nbackends ${r.backends.map((b) => b.backend).join(', ')}\n\n`);
      process.stdout.write(table(['TARGET', 'BACKEND', 'SOURCE', 'STATE', 'HEALTH', 'TIME', 'SANDBOX', 'DETAIL'], r.targets.map((t) => [
        t.name, t.backend, t.source, t.state, t.ok ? 'ok' : 'FAIL', `${t.ms}ms`, t.sandbox ? sandboxLine(t.sandbox) : '-', (t.ok ? t.detail : t.problem) ?? '',
      ])));
      if (r.plugins?.length) {
        process.stdout.write(`\n${table(['PLUGIN', 'VERSION', 'STATE', 'AVAILABLE', 'BACKENDS', 'PROBLEM'], r.plugins.map((p) => [
          p.name, p.version ?? '', p.state, p.available === undefined ? '-' : p.available ? 'yes' : 'NO', p.backends.join(','), p.problem ?? '',
        ]))}`);
        for (const p of r.plugins) {
          for (const c of p.checks) process.stdout.write(`check ${p.name}: ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? ` — ${c.detail}` : ''}\n`);
          for (const q of p.requirements) process.stdout.write(`requirement ${p.name}: ${q}\n`);
        }
      }
      for (const p of r.problems) process.stdout.write(`problem: ${p}\n`);
      if (r.targets.some((t) => !t.ok) || r.problems.length > 0) process.exitCode = 1;
    }));
}
