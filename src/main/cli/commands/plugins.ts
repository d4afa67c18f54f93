// `switchboard plugins list | enable NAME | disable NAME | restart NAME | install PATH`: through the running Core
// (live), else on the profile's files.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { SwitchboardError } from '../../../shared/errors.js';
import { pluginFlagSentences } from '../../../shared/pluginFlagSentences.js';
import type { PluginInfo, PluginManifest } from '../../../shared/plugins.js';
import { switchboardHome } from '../../core/platform/index.js';
import {
  findPlugin,
  installedPlugins,
  installPlugin,
  readEnabled,
  readPlugin,
  writeEnabled,
} from '../../core/plugins/index.js';
import { coreRunning, withCore } from '../connect.js';
import { action, printJson, table } from '../output.js';
import { askYes, atTerminal, selfPersonRefusal } from '../personAtTerminal.js';

/** What is said of a plugin without a Core: installed and enabled or not; nothing about whether it loads. */
interface OfflinePlugin {
  name: string;
  version?: string;
  dir: string;
  enabled: boolean;
  problem?: string;
}

function offlineList(home: string): OfflinePlugin[] {
  const enabled = new Set(readEnabled(home).enabled);
  return installedPlugins(home).map((p) => ({
    name: p.name,
    ...(p.manifest ? { version: p.manifest.version } : {}),
    dir: p.dir,
    enabled: enabled.has(p.name),
    ...(p.problem ? { problem: p.problem } : {}),
  }));
}

function printLive(list: PluginInfo[], json: boolean | undefined): void {
  if (json) return printJson({ core: 'running', plugins: list });
  if (list.length === 0) return void process.stdout.write('no plugins installed (switchboard plugins install PATH)\n');
  process.stdout.write(
    table(
      ['PLUGIN', 'VERSION', 'STATE', 'BACKENDS', 'PROBLEM'],
      list.map((p) => [p.name, p.version ?? '', p.state, p.backends.join(','), p.problem ?? '']),
    ),
  );
}

function printOffline(list: OfflinePlugin[], json: boolean | undefined): void {
  if (json) return printJson({ core: 'not running', plugins: list });
  if (list.length === 0) return void process.stdout.write('no plugins installed (switchboard plugins install PATH)\n');
  process.stdout.write(
    table(
      ['PLUGIN', 'VERSION', 'STATE', 'PROBLEM'],
      list.map((p) => [p.name, p.version ?? '', p.enabled ? 'enabled' : 'disabled', p.problem ?? '']),
    ),
  );
  process.stdout.write('no Switchboard Core is running: enabled plugins load when one starts\n');
}

/** One plugin's new state; a plugin the Core refused or could not load makes the command fail after saying why. */
function reportOne(p: PluginInfo | OfflinePlugin, json: boolean | undefined, live: boolean): void {
  if (json) printJson(live ? { core: 'running', plugin: p } : { core: 'not running', plugin: p });
  else {
    const state = 'state' in p ? p.state : p.enabled ? 'enabled (loads when a Core starts)' : 'disabled';
    process.stdout.write(`plugin ${p.name}: ${state}${p.problem ? ` — ${p.problem}` : ''}\n`);
  }
  if ('state' in p && (p.state === 'failed' || p.state === 'refused')) process.exitCode = 1;
}

/**
 * Without a Core, the CLI writes the profile itself, and nothing stands between an agent's shell and that write:
 * only a process at a terminal of its own, outside every agent sandbox and tool call, may do it.
 */
function refuseUnlessPerson(verb: string): void {
  const why = selfPersonRefusal();
  if (why === undefined) return;
  throw new SwitchboardError(
    'not_permitted',
    `plugins ${verb}: with no Core running, only a person at a terminal may change which plugins run (${why})`,
  );
}

/**
 * Say what the plugin's manifest asks for, in words, and get a person's yes: from the terminal, or `--yes` (which a
 * person types after reading). Without a terminal and without --yes: refused, one line.
 */
async function confirmPlugin(
  verb: 'Enable' | 'Install',
  m: PluginManifest,
  opts: { yes?: boolean; json?: boolean },
): Promise<void> {
  // With --json the sentences go to stderr: stdout holds one JSON document.
  const out = opts.json ? process.stderr : process.stdout;
  const lines = pluginFlagSentences(m.flags)
    .map((l) => `  ${l}\n`)
    .join('');
  out.write(`plugin ${m.name} ${m.version}${m.description ? ` — ${m.description}` : ''}\n${lines}`);
  if (opts.yes) return;
  if (!atTerminal()) {
    throw new SwitchboardError(
      'not_permitted',
      `${verb.toLowerCase()} ${m.name}: not confirmed — run it at a terminal to answer, ` +
        `or add --yes once you have read what it allows`,
    );
  }
  if (!(await askYes(`${verb} ${m.name}?`, out)))
    throw new SwitchboardError('not_permitted', `${verb.toLowerCase()} ${m.name}: not confirmed; nothing changed`);
}

export function pluginsCommand(program: Command): void {
  const plugins = program.command('plugins').description('list, enable, disable, restart and install plugin backends');
  plugins
    .command('list')
    .description('installed plugins and their state')
    .option('--json', 'one JSON document')
    .action(
      action(async (opts: { json?: boolean }) => {
        const home = switchboardHome();
        if (coreRunning(home)) printLive(await withCore((c) => c.call('plugins.list', {})), opts.json);
        else printOffline(offlineList(home), opts.json);
      }),
    );
  for (const verb of ['enable', 'disable'] as const) {
    const cmd = plugins
      .command(verb)
      .description(
        verb === 'enable'
          ? 'load a plugin now and at every start (says what it allows, then asks)'
          : 'unload a plugin; its targets show unreachable',
      )
      .argument('<name>', 'the plugin name')
      .option('--json', 'one JSON document');
    if (verb === 'enable') cmd.option('--yes', 'do not ask: you have read what it allows');
    cmd.action(
      action(async (name: string, opts: { json?: boolean; yes?: boolean }) => {
        const home = switchboardHome();
        const live = coreRunning(home);
        if (!live) refuseUnlessPerson(verb);
        const p = findPlugin(home, name);
        if (verb === 'enable') {
          if (!p.manifest) throw new SwitchboardError('bad_request', `plugin ${name}: ${p.problem}`, `fix ${p.dir}`);
          await confirmPlugin('Enable', p.manifest, opts);
        }
        if (live) return reportOne(await withCore((c) => c.call(`plugins.${verb}`, { name })), opts.json, true);
        const state = readEnabled(home);
        const enabled = verb === 'enable' ? [...state.enabled, name] : state.enabled.filter((n) => n !== name);
        writeEnabled(home, { ...state, enabled });
        reportOne(offlineList(home).find((o) => o.name === name)!, opts.json, false);
      }),
    );
  }
  plugins
    .command('restart')
    .description("start an enabled plugin's host again (a plugin that crashed too often is not restarted by itself)")
    .argument('<name>', 'the plugin name')
    .option('--json', 'one JSON document')
    .action(
      action(async (name: string, opts: { json?: boolean }) => {
        // A host runs only inside a Core: without one there is nothing to restart, and the next start loads it.
        if (!coreRunning(switchboardHome()))
          throw new SwitchboardError(
            'bad_request',
            `plugins restart ${name}: no Switchboard Core is running; enabled plugins load when one starts`,
          );
        reportOne(await withCore((c) => c.call('plugins.restart', { name })), opts.json, true);
      }),
    );
  plugins
    .command('install')
    .description(
      'copy a plugin folder (plugin.yaml, or an npm package with a "switchboard" field) into the profile; ' +
        'installed disabled (says what it allows, then asks)',
    )
    .argument('<path>', 'the plugin folder')
    .option('--json', 'one JSON document')
    .option('--yes', 'do not ask: you have read what it allows')
    .action(
      action(async (path: string, opts: { json?: boolean; yes?: boolean }) => {
        const home = switchboardHome();
        const full = resolve(path);
        const live = coreRunning(home);
        if (!live) refuseUnlessPerson('install');
        // What it asks for is read from the folder as it is now, before anything is copied.
        const read = readPlugin(full);
        if (read.manifest) await confirmPlugin('Install', read.manifest, opts);
        if (live) return reportOne(await withCore((c) => c.call('plugins.install', { path: full })), opts.json, true);
        const p = installPlugin(home, full);
        reportOne(
          { name: p.name, ...(p.manifest ? { version: p.manifest.version } : {}), dir: p.dir, enabled: false },
          opts.json,
          false,
        );
      }),
    );
}
