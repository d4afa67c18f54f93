// A plugin loaded the way the plugin host loads one, for tests that call a plugin module directly: its manifest read,
// its module imported, `register(ctx)` called with a fresh data folder.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { PluginManifest, type PluginBackendProvider, type PluginContext } from '../../src/shared/plugins.js';

export interface LoadedPlugin {
  manifest: PluginManifest;
  providers: PluginBackendProvider[];
  dataDir: string;
  log: string[];
  dispose(): void;
}

/** `dataParent`: where the plugin's data folder is made (a temp folder by default). */
export async function loadPlugin(dir: string, dataParent = tmpdir()): Promise<LoadedPlugin> {
  const manifest = PluginManifest.parse(parse(readFileSync(join(dir, 'plugin.yaml'), 'utf8')));
  mkdirSync(dataParent, { recursive: true });
  const dataDir = mkdtempSync(join(dataParent, `sb-plugin-${manifest.name}-`));
  const providers: PluginBackendProvider[] = [];
  const log: string[] = [];
  const ctx: PluginContext = {
    registerBackendProvider: (p) => providers.push(p),
    plugin: { name: manifest.name, version: manifest.version, dir, data_dir: dataDir },
    log: (m) => log.push(m),
  };
  const mod = (await import(pathToFileURL(join(dir, manifest.entry)).href)) as {
    register(ctx: PluginContext): void | Promise<void>;
  };
  await mod.register(ctx);
  return { manifest, providers, dataDir, log, dispose: () => rmSync(dataDir, { recursive: true, force: true }) };
}
