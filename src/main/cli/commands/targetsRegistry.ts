// What the registry-writing commands share: the profile's Registry, config names, requester options, output.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { publicSpec, type TargetInfo } from '../../../shared/targets.js';
import { switchboardHome } from '../../core/platform/index.js';
import { builtinSpec, builtinSpecSchemas } from '../../core/backends/index.js';
import { ConfigStore } from '../../core/config/index.js';
import { offlineSpecSchemas } from '../../core/plugins/index.js';
import { Registry, type RegistryChange } from '../../core/registry/index.js';
import { printJson } from '../output.js';

/** The names config.yaml defines: exactly as the Core reads them, or leniently when the file is broken. */
export function configTargetNames(home: string): string[] {
  try {
    const store = new ConfigStore(home, () => offlineSpecSchemas(home, builtinSpecSchemas()));
    return [...store.config.targets.keys()];
  } catch {
    try {
      const root = parseYaml(readFileSync(join(home, 'config.yaml'), 'utf8')) as {
        terminal?: { targets?: unknown; backend?: unknown };
      } | null;
      const t = root?.terminal;
      if (t?.targets && typeof t.targets === 'object') return Object.keys(t.targets);
      if (t?.backend !== undefined) return ['default'];
    } catch {
      /* unreadable: the Core will say so; nothing to protect here */
    }
    return [];
  }
}

/** The registry of this profile (SWITCHBOARD_HOME); the CLI writes it directly, no Core needed. */
export function openRegistry(home = switchboardHome()): Registry {
  return new Registry(home, { configNames: () => configTargetNames(home) });
}

export interface RequesterOptions {
  provider: string;
  ownerId?: string;
}

export function requesterOptions(cmd: Command, withGeneration: string | undefined): Command {
  cmd
    .option('--provider <provider>', 'who owns the registration (a controller name)', 'cli')
    .option('--owner-id <id>', 'which instance of the provider owns it');
  if (withGeneration) cmd.option('--generation <generation>', withGeneration);
  return cmd.option('--json', 'one JSON document');
}

/** A change as one secret-free JSON document: routing fields only. */
export function changeDocument(change: RegistryChange): Record<string, unknown> {
  const r = change.record;
  const target: Partial<TargetInfo> & Record<string, unknown> = {
    name: r.name,
    generation: r.generation,
    source: 'runtime',
    state: change.action === 'removed' ? 'removed' : r.state,
    backend: r.spec.backend,
    spec: publicSpec(r.spec as Record<string, unknown>, builtinSpec(r.spec.backend)?.fields),
    provider: r.provider,
    owner_id: r.owner_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
  if (r.spec.cwd) target.cwd = r.spec.cwd;
  return {
    action: change.action,
    target,
    ...(change.previous_generation ? { previous_generation: change.previous_generation } : {}),
  };
}

export function reportChange(change: RegistryChange, json: boolean | undefined): void {
  if (json) return printJson(changeDocument(change));
  process.stdout.write(changeLine(change) + '\n');
}

/** A change in one line of words. */
export function changeLine(change: RegistryChange): string {
  const r = change.record;
  const line: Record<RegistryChange['action'], string> = {
    registered:
      `registered ${r.spec.backend} target "${r.name}" ` + `at generation ${r.generation} (provider ${r.provider})`,
    replaced:
      `replaced target "${r.name}": generation ${change.previous_generation ?? '?'} → ${r.generation}; ` +
      `new calls go to the new generation`,
    drained:
      `target "${r.name}" (generation ${r.generation}) is draining: new calls and panes are refused, ` +
      `running work goes on`,
    removed:
      `removed target "${r.name}" (generation ${r.generation}); running terminals and processes on it stay ` +
      `until they end`,
    unchanged: `target "${r.name}" (generation ${r.generation}) is already ${r.state}`,
  };
  return line[change.action];
}
