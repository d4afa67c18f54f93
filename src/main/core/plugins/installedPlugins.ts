// What is installed under $SWITCHBOARD_HOME/plugins/ and which plugins are enabled — read and written without a Core.
//
// Enabled state lives in the profile, in plugins/enabled.json: { "enabled": ["bwrap", …], "backends": { "bwrap":
// ["bwrap"] } }. `backends` remembers the backend names each plugin registered when it last loaded, so a config
// target of a plugin that is not enabled now is recognised (shown unreachable, "plugin X is not enabled") rather
// than failing the config as an unknown backend. A plugin is disabled until enabled.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { SwitchboardError } from '../../../shared/errors.js';
import { PluginManifest, PluginName } from '../../../shared/plugins.js';
import { dormantSpec } from '../../../shared/targets.js';
import { atomicWriteSync, didYouMean } from '../platform/index.js';

export interface InstalledPlugin {
  /** The manifest's name, or the folder's when the manifest cannot be read. */
  name: string;
  dir: string;
  manifest?: PluginManifest;
  /** Why it cannot be loaded (a missing or broken manifest). */
  problem?: string;
}

const EnabledFile = z.object({
  enabled: z.array(z.string()).default([]),
  backends: z.record(z.string(), z.array(z.string())).default({}),
  /**
   * Per plugin, the keys its backends declare as secret references (`token_env`): written when it loads, so the
   * registry, read without a Core, knows they name where a secret lives and are not one.
   */
  secret_refs: z.record(z.string(), z.array(z.string())).default({}),
});
export type EnabledState = z.infer<typeof EnabledFile>;

export function pluginsDir(home: string): string {
  return join(home, 'plugins');
}

function enabledPath(home: string): string {
  return join(pluginsDir(home), 'enabled.json');
}

export function readEnabled(home: string): EnabledState {
  try {
    const parsed = EnabledFile.safeParse(JSON.parse(readFileSync(enabledPath(home), 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    /* missing or unreadable: nothing enabled */
  }
  return { enabled: [], backends: {}, secret_refs: {} };
}

/** Every key an installed plugin's backend declared as a secret reference, as the last load remembered them. */
export function rememberedSecretReferences(home: string): Set<string> {
  return new Set(Object.values(readEnabled(home).secret_refs).flat());
}

export function writeEnabled(home: string, state: EnabledState): void {
  mkdirSync(pluginsDir(home), { recursive: true, mode: 0o700 });
  const doc = { enabled: [...new Set(state.enabled)].sort(), backends: state.backends, secret_refs: state.secret_refs };
  atomicWriteSync(enabledPath(home), `${JSON.stringify(doc, null, 2)}\n`, 0o600);
}

/** The manifest of a plugin folder: plugin.yaml, else the `switchboard` field of package.json. */
function readManifest(dir: string): PluginManifest {
  let raw: unknown;
  const yamlPath = join(dir, 'plugin.yaml');
  const pkgPath = join(dir, 'package.json');
  if (existsSync(yamlPath)) raw = parseYaml(readFileSync(yamlPath, 'utf8'));
  else if (existsSync(pkgPath)) {
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as Record<string, unknown>;
    const field = pkg.switchboard;
    if (typeof field !== 'object' || field === null) throw new Error('package.json has no "switchboard" field');
    // An npm package's name and version are its own unless the field says otherwise; its entry defaults to `main`.
    raw = {
      name: pkg.name,
      version: pkg.version,
      kind: 'backend',
      ...(typeof pkg.main === 'string' ? { entry: pkg.main } : {}),
      ...field,
    };
  } else throw new Error('no plugin.yaml (or package.json with a "switchboard" field)');
  // `version: 1.2` in YAML is a number; a person meant the text.
  if (typeof raw === 'object' && raw !== null && typeof (raw as { version?: unknown }).version === 'number') {
    raw = { ...raw, version: String((raw as { version: number }).version) };
  }
  const parsed = PluginManifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') || 'manifest'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** One folder, read. */
export function readPlugin(dir: string): InstalledPlugin {
  try {
    const manifest = readManifest(dir);
    return { name: manifest.name, dir, manifest };
  } catch (err) {
    return { name: basename(dir), dir, problem: `bad manifest: ${(err as Error).message.split('\n')[0]}` };
  }
}

/**
 * Every plugin folder under plugins/, sorted by name (the order plugins load in: the first to claim a name keeps it).
 */
export function installedPlugins(home: string): InstalledPlugin[] {
  const root = pluginsDir(home);
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => !n.startsWith('.') && statSync(join(root, n)).isDirectory());
  } catch {
    // no plugins folder: no plugins
    return [];
  }
  return names.sort().map((n) => readPlugin(join(root, n)));
}

/** The installed plugin by name; unknown_plugin with a did-you-mean otherwise. */
export function findPlugin(home: string, name: string): InstalledPlugin {
  const all = installedPlugins(home);
  const found = all.find((p) => p.name === name);
  if (found) return found;
  const guess = didYouMean(
    name,
    all.map((p) => p.name),
  );
  throw new SwitchboardError(
    'unknown_plugin',
    `no plugin named "${name}"${guess ? ` — did you mean "${guess}"?` : ''}`,
    all.length
      ? 'see: switchboard plugins list'
      : `install one with: switchboard plugins install PATH (into ${pluginsDir(home)})`,
  );
}

/**
 * Copy a plugin folder into plugins/<name>/ (installed disabled). Refuses a bad manifest or a name already installed.
 */
export function installPlugin(home: string, path: string): InstalledPlugin {
  const src = resolve(path);
  if (!existsSync(src) || !statSync(src).isDirectory())
    throw new SwitchboardError(
      'bad_request',
      `${path} is not a folder`,
      'give the folder that holds plugin.yaml (or an npm package with a "switchboard" field)',
    );
  const read = readPlugin(src);
  if (!read.manifest) throw new SwitchboardError('bad_request', `${path}: ${read.problem}`);
  if (!PluginName.safeParse(read.name).success)
    throw new SwitchboardError('bad_request', `plugin name "${read.name}" is not lower-case letters, digits and _`);
  const dest = join(pluginsDir(home), read.name);
  if (existsSync(dest))
    throw new SwitchboardError(
      'bad_request',
      `a plugin named "${read.name}" is already installed`,
      `remove ${dest} first to replace it`,
    );
  mkdirSync(pluginsDir(home), { recursive: true, mode: 0o700 });
  cpSync(src, dest, { recursive: true, filter: (s) => !s.includes(`${join(src, '.git')}`) });
  return readPlugin(dest);
}

/**
 * Spec schemas for reading config.yaml without a Core: the given (built-in) ones, and any-keys for the backends of
 * installed plugins (their fields are known only once a Core loads them), so a plugin target is no config error.
 */
export function offlineSpecSchemas(home: string, builtins: ReadonlyMap<string, z.ZodType>): Map<string, z.ZodType> {
  const remembered = readEnabled(home).backends;
  const names = installedPlugins(home).flatMap((p) => [p.name, ...(remembered[p.name] ?? [])]);
  return new Map<string, z.ZodType>([
    ...names.filter((n) => !builtins.has(n)).map((n) => [n, dormantSpec] as const),
    ...builtins,
  ]);
}
