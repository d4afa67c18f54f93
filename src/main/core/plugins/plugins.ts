// The Core's plugins: which are installed and enabled, their hosts, the backends they provide, refusals and failures.
import { SwitchboardError } from '../../../shared/errors.js';
import { PluginName, type PluginInfo } from '../../../shared/plugins.js';
import type { ProviderDeclaration } from '../../../shared/pluginRpc.js';
import {
  findPlugin,
  installedPlugins,
  installPlugin,
  pluginsDir,
  readEnabled,
  writeEnabled,
  type InstalledPlugin,
} from './installedPlugins.js';
import { PluginHost } from './pluginHost.js';
import { pluginProvider, type PluginBackend } from './pluginProvider.js';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { secretReferenceKeys } from '../backends/index.js';
import type { Log } from '../platform/index.js';

const loadDeadlineMs = 30_000;

interface Plugin {
  installed: InstalledPlugin;
  enabled: boolean;
  state: PluginInfo['state'];
  problem?: string;
  backends: string[];
  providers: PluginBackend[];
  host?: PluginHost;
  /** Why its host is down right now (crashed, hung, restarting); its targets show it. */
  down?: string;
}

export interface PluginsDeps {
  home: string;
  /** Backend names no plugin may take: the built-ins'. */
  reserved: () => readonly string[];
  /** A plugin's state or backends changed (enable, disable, crash, comeback). */
  onChange: () => void;
  /** The Core's log: every line for a plugin's author (plugins/.host.log) is kept there too. */
  log?: Log;
}

export class Plugins {
  private readonly plugins = new Map<string, Plugin>();

  constructor(private readonly deps: PluginsDeps) {
    this.rescan();
  }

  /** Load every enabled plugin, one after the other (the first to claim a backend name keeps it). */
  async start(): Promise<void> {
    for (const p of this.plugins.values()) if (p.enabled && p.state === 'disabled') await this.load(p);
  }

  /** Pick up folders added or removed under plugins/ (kept: what is loaded). */
  private rescan(): void {
    const enabled = new Set(readEnabled(this.deps.home).enabled);
    const seen = new Set<string>();
    for (const installed of installedPlugins(this.deps.home)) {
      if (seen.has(installed.name)) continue;
      seen.add(installed.name);
      const known = this.plugins.get(installed.name);
      if (known) {
        known.enabled = enabled.has(installed.name);
        if (known.state === 'disabled' || known.state === 'failed') known.installed = installed;
        continue;
      }
      this.plugins.set(installed.name, {
        installed,
        enabled: enabled.has(installed.name),
        state: 'disabled',
        backends: [],
        providers: [],
      });
    }
    for (const [name, p] of this.plugins) if (!seen.has(name) && !p.host) this.plugins.delete(name);
  }

  list(): PluginInfo[] {
    this.rescan();
    return [...this.plugins.values()].map((p) => this.info(p));
  }

  private info(p: Plugin): PluginInfo {
    const m = p.installed.manifest;
    const problem = p.problem ?? p.down ?? p.installed.problem;
    return {
      name: p.installed.name,
      ...(m ? { version: m.version } : {}),
      ...(m?.description ? { description: m.description } : {}),
      dir: p.installed.dir,
      enabled: p.enabled,
      state: p.installed.problem && p.enabled ? 'failed' : p.state,
      backends: [...p.backends],
      ...(problem ? { problem } : {}),
      ...(m ? { flags: { ...m.flags } } : {}),
    };
  }

  /**
   * The strip_env_keys every loaded plugin's backends declared: a vendor's credentials leave every command on every
   * backend (the seed's promise), not only the commands of that vendor's targets. Kept while the Core runs, so a
   * plugin disabled later still has its names withheld.
   */
  strippedEverywhere(): readonly string[] {
    return this.stripped;
  }

  private stripped: readonly string[] = [];

  private noteStripped(p: Plugin): void {
    const keys = new Set(this.stripped);
    for (const b of p.providers) for (const k of b.flags.strip_env_keys) keys.add(k);
    if (keys.size !== this.stripped.length) this.stripped = [...keys];
  }

  providers(): PluginBackend[] {
    return [...this.plugins.values()].flatMap((p) => (p.state === 'active' ? p.providers : []));
  }

  provider(backend: string): PluginBackend | undefined {
    return this.providers().find((p) => p.backend === backend);
  }

  /** The running host of an active plugin, for doctor's calls into it. */
  hostOf(plugin: string): PluginHost | undefined {
    const p = this.plugins.get(plugin);
    return p?.state === 'active' && !p.down ? p.host : undefined;
  }

  /** Why a backend that no provider serves is missing, when an installed plugin is (or was) its provider. */
  missing(backend: string): string | undefined {
    const remembered = readEnabled(this.deps.home).backends;
    for (const p of this.plugins.values()) {
      if (
        p.installed.name !== backend &&
        !(remembered[p.installed.name] ?? []).includes(backend) &&
        !p.backends.includes(backend)
      )
        continue;
      const name = p.installed.name;
      if (!p.enabled) return `plugin ${name} is not enabled (switchboard plugins enable ${name})`;
      if (p.state === 'loading') return `plugin ${name} is loading`;
      return `plugin ${name} is ${p.state}${p.problem ? `: ${p.problem}` : ''}`;
    }
    return undefined;
  }

  /** Backend names an installed plugin is known for that no active provider serves (config accepts their targets). */
  dormantBackends(): string[] {
    const remembered = readEnabled(this.deps.home).backends;
    const names = [...this.plugins.values()].flatMap((p) => [
      p.installed.name,
      ...(remembered[p.installed.name] ?? []),
      ...p.backends,
    ]);
    return [...new Set(names)].filter(
      (n) => PluginName.safeParse(n).success && !this.provider(n) && !this.deps.reserved().includes(n),
    );
  }

  private async load(p: Plugin): Promise<void> {
    const m = p.installed.manifest;
    if (!m) {
      p.state = 'failed';
      p.problem = p.installed.problem;
      return;
    }
    p.state = 'loading';
    p.problem = undefined;
    p.down = undefined;
    const host = new PluginHost({
      plugin: m.name,
      logFile: join(pluginsDir(this.deps.home), '.host.log'),
      onStart: async (h) => {
        const r = await h.call(
          'load',
          {
            name: m.name,
            version: m.version,
            dir: p.installed.dir,
            data_dir: join(pluginsDir(this.deps.home), '.data', m.name),
            entry: m.entry,
          },
          loadDeadlineMs,
        );
        this.apply(p, h, r.providers);
      },
      log: (message) => this.log(`${m.name}: ${message}`),
      onDown: (reason) => {
        if (p.host !== host || p.state !== 'active') return;
        p.down = reason;
        this.deps.onChange();
      },
      // Crashing again and again: failed, its backends gone, until a person restarts it (restart below).
      onGaveUp: (reason) => {
        if (p.host !== host) return;
        p.host = undefined;
        p.providers = [];
        p.state = 'failed';
        p.down = undefined;
        p.problem = `${reason}; restart it with: switchboard plugins restart ${m.name}`;
        this.deps.onChange();
      },
    });
    p.host = host;
    try {
      await host.start();
    } catch (err) {
      host.close();
      if (p.host === host) p.host = undefined;
      if (p.state === 'loading') {
        p.state = 'failed';
        const why =
          err instanceof Error
            ? err.message.replace(/^plugin \S+: (load failed: )?/, '').replace(/; its host is restarted$/, '')
            : String(err);
        p.problem = `failed to load: ${why}`;
      }
    }
    this.deps.onChange();
  }

  /** Check what a (re)loaded plugin registered: names well-formed, not a built-in's, not another plugin's. */
  private apply(p: Plugin, host: PluginHost, decls: ProviderDeclaration[]): void {
    const name = p.installed.name;
    p.backends = decls.map((d) => d.name);
    const refusal = decls
      .map((d) => {
        if (!PluginName.safeParse(d.name).success)
          return `backend name "${d.name}" is not lower-case letters, digits and _ starting with a letter`;
        if (this.deps.reserved().includes(d.name))
          return `backend name "${d.name}" is a built-in backend's; a plugin cannot replace it`;
        const owner = [...this.plugins.values()].find(
          (o) => o !== p && o.state === 'active' && o.backends.includes(d.name),
        );
        if (owner) return `backend name "${d.name}" is already provided by plugin ${owner.installed.name}`;
        if (decls.filter((o) => o.name === d.name).length > 1) return `backend name "${d.name}" is registered twice`;
        return undefined;
      })
      .find(Boolean);
    if (decls.length === 0) throw new Error('register(ctx) registered no backend');
    if (refusal) {
      p.state = 'refused';
      p.problem = `refused: ${refusal}`;
      p.providers = [];
      host.close();
      if (p.host === host) p.host = undefined;
      return;
    }
    const link = {
      plugin: name,
      host: (): PluginHost => {
        if (!p.host || p.down || p.state !== 'active') {
          throw new SwitchboardError(
            'target_unreachable',
            p.down ?? `plugin ${name} is ${p.enabled ? p.state : 'not enabled'}`,
            'see: switchboard plugins list',
          );
        }
        return p.host;
      },
      problem: () => p.down,
      changed: () => this.deps.onChange(),
      log: (message: string) => this.log(`${name}: ${message}`),
    };
    // Its backends get no more than its manifest asked for: what the person saw when enabling it.
    p.providers = decls.map((d) => pluginProvider(d, link, p.installed.manifest?.flags));
    this.noteStripped(p);
    p.state = 'active';
    p.problem = undefined;
    p.down = undefined;
    const state = readEnabled(this.deps.home);
    const refs = [...secretReferenceKeys(p.providers)].sort();
    if (
      (state.backends[name] ?? []).join() !== p.backends.join() ||
      (state.secret_refs[name] ?? []).join() !== refs.join()
    ) {
      writeEnabled(this.deps.home, {
        ...state,
        backends: { ...state.backends, [name]: p.backends },
        secret_refs: { ...state.secret_refs, [name]: refs },
      });
    }
    // A host that came back after a crash: its targets are reachable again.
    this.deps.onChange();
  }

  async enable(name: string): Promise<PluginInfo> {
    this.rescan();
    const installed = findPlugin(this.deps.home, name);
    const state = readEnabled(this.deps.home);
    if (!state.enabled.includes(name)) writeEnabled(this.deps.home, { ...state, enabled: [...state.enabled, name] });
    const p = this.plugins.get(installed.name)!;
    p.enabled = true;
    if (p.state !== 'active' && p.state !== 'loading') {
      this.stop(p);
      p.installed = installed;
      await this.load(p);
    }
    return this.info(p);
  }

  async disable(name: string): Promise<PluginInfo> {
    this.rescan();
    const installed = findPlugin(this.deps.home, name);
    const state = readEnabled(this.deps.home);
    writeEnabled(this.deps.home, { ...state, enabled: state.enabled.filter((n) => n !== name) });
    const p = this.plugins.get(installed.name)!;
    p.enabled = false;
    this.stop(p);
    this.deps.onChange();
    return this.info(p);
  }

  /**
   * A person's restart of an enabled plugin: a new host, its crash count from zero. The way back for a plugin that
   * crashed too often to be restarted by itself (pluginHost.ts restartLimit).
   */
  async restart(name: string): Promise<PluginInfo> {
    this.rescan();
    const installed = findPlugin(this.deps.home, name);
    const p = this.plugins.get(installed.name)!;
    if (!p.enabled) {
      throw new SwitchboardError(
        'bad_request',
        `plugin ${installed.name} is not enabled; there is nothing to restart`,
        `enable it: switchboard plugins enable ${installed.name}`,
      );
    }
    this.stop(p);
    p.installed = installed;
    await this.load(p);
    return this.info(p);
  }

  install(path: string): PluginInfo {
    const installed = installPlugin(this.deps.home, path);
    this.rescan();
    const p = this.plugins.get(installed.name);
    return p
      ? this.info(p)
      : { name: installed.name, dir: installed.dir, enabled: false, state: 'disabled', backends: [] };
  }

  /** A line in plugins/.host.log, beside what the hosts write, and in the Core's log. */
  private log(message: string): void {
    this.deps.log?.warn(message);
    try {
      appendFileSync(
        join(pluginsDir(this.deps.home), '.host.log'),
        `${new Date().toISOString()} ${message.replace(/\s+/g, ' ').slice(0, 2000)}\n`,
        { mode: 0o600 },
      );
    } catch {
      /* a log line is not worth failing a call */
    }
  }

  private stop(p: Plugin): void {
    p.host?.close();
    p.host = undefined;
    p.providers = [];
    p.state = 'disabled';
    p.problem = undefined;
    p.down = undefined;
  }

  close(): void {
    for (const p of this.plugins.values()) p.host?.close();
  }
}
