// The one view of all targets: config targets and runtime ones, resolved to frozen snapshots per dispatch.
import { SwitchboardError } from '../../../shared/errors.js';
import {
  publicSpec,
  runtimeIdentity,
  type ProviderFlags,
  type TargetInfo,
  type TargetSpec,
} from '../../../shared/targets.js';
import type { ConfigStore } from '../config/index.js';
import { didYouMean } from '../platform/index.js';
import { flagsOf, type BackendDeclaration, type TargetSnapshot } from '../backends/index.js';
import { targetSandbox } from './targetSandbox.js';
import type { RuntimeRecord, RuntimeSource } from '../registry/index.js';
import { echoed } from '../../../shared/echoed.js';

interface Entry {
  name: string;
  generation: string;
  source: 'config' | 'runtime';
  state: 'active' | 'draining';
  spec: TargetSpec;
  record?: RuntimeRecord;
}

export class TargetTable {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly config: ConfigStore,
    private readonly runtime: RuntimeSource,
    private readonly providers: (backend: string) => BackendDeclaration | undefined,
    /** Why a backend no provider serves is missing ("plugin bwrap is not enabled"); a generic line when absent. */
    private readonly missing: (backend: string) => string | undefined = () => undefined,
  ) {
    config.onChange(() => this.emit());
    runtime.onChange(() => this.emit());
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }

  /** Look at the files again (file events can be missed); called at the start of each dispatch. */
  refresh(): void {
    const a = this.config.refresh();
    const b = this.runtime.refresh();
    if (a || b) this.emit();
  }

  get defaultTarget(): string {
    return this.config.config.defaultTarget;
  }

  private entries(): { entries: Map<string, Entry>; problems: string[] } {
    const cfg = this.config.config;
    const entries = new Map<string, Entry>();
    const problems: string[] = [];
    for (const [name, t] of cfg.targets)
      entries.set(name, { name, generation: t.generation, source: 'config', state: 'active', spec: t.spec });
    const configFolded = new Map([...entries.keys()].map((n) => [n.toLowerCase(), n]));
    for (const r of this.runtime.list()) {
      const twin = configFolded.get(r.name.toLowerCase());
      if (twin !== undefined) {
        // A runtime name never shadows a config target (nor one that differs only in case); the config one stays
        // usable.
        problems.push(
          twin === r.name
            ? `runtime target "${r.name}" (provider ${r.provider}) is withheld: a config target has that name`
            : `runtime target "${r.name}" (provider ${r.provider}) is withheld: ` +
                `it differs from the config target "${twin}" only in case`,
        );
        continue;
      }
      entries.set(r.name, {
        name: r.name,
        generation: r.generation,
        source: 'runtime',
        state: r.state,
        spec: r.spec,
        record: r,
      });
    }
    return { entries, problems: [...problems, ...this.runtime.problems()] };
  }

  problems(): string[] {
    const p = this.entries().problems;
    if (this.config.problem) p.unshift(`${this.config.problem} (the previous config stays in force)`);
    return p;
  }

  names(): string[] {
    return [...this.entries().entries.keys()];
  }

  /** A frozen snapshot of one target. Throws unknown_target with a did-you-mean. */
  snapshot(name: string | undefined): TargetSnapshot {
    const cfg = this.config.config;
    const wanted = name ?? cfg.defaultTarget;
    const { entries } = this.entries();
    const e = entries.get(wanted);
    if (!e) {
      const guess = didYouMean(wanted, [...entries.keys()]);
      throw new SwitchboardError(
        'unknown_target',
        `unknown target "${echoed(wanted)}"${guess ? ` — did you mean "${guess}"?` : ''}`,
        `known targets: ${[...entries.keys()].join(', ') || 'none'}`,
      );
    }
    return this.freeze(e, cfg.timeoutSec);
  }

  private freeze(e: Entry, defaultTimeout: number): TargetSnapshot {
    const provider = this.providers(e.spec.backend);
    if (!provider) {
      const why = this.missing(e.spec.backend);
      throw new SwitchboardError(
        'target_unreachable',
        `target "${e.name}" uses backend "${e.spec.backend}", which is not available${why ? `: ${why}` : ''}`,
        'enable the plugin that provides it (switchboard plugins list)',
      );
    }
    // A runtime target registered while its backend's fields were unknown (a plugin not loaded) is checked now.
    if (e.source === 'runtime') {
      const checked = provider.specSchema.safeParse(e.spec);
      if (!checked.success) {
        throw new SwitchboardError(
          'bad_request',
          `runtime target "${e.name}" does not fit ` +
            `backend ${e.spec.backend}: ${checked.error.issues[0]?.message ?? 'invalid'}`,
          "register it again with the backend's fields (switchboard targets register --replace)",
        );
      }
    }
    const spec = structuredClone(e.spec);
    return Object.freeze({
      name: e.name,
      generation: e.generation,
      identity: runtimeIdentity(e.name, e.generation),
      source: e.source,
      state: e.state,
      spec: Object.freeze(spec),
      flags: frozenFlags(flagsOf(provider, spec)),
      timeoutSec: spec.timeout ?? defaultTimeout,
    });
  }

  /** What the sidebar, CLI and list_targets show. `extra` adds live state (cwd, reachability). */
  list(
    extra: (
      name: string,
      identity: string,
    ) => Pick<TargetInfo, 'cwd' | 'problem' | 'health' | 'cwd_problem' | 'sandbox'>,
  ): TargetInfo[] {
    const cfg = this.config.config;
    const { entries } = this.entries();
    return [...entries.values()].map((e) => {
      const identity = runtimeIdentity(e.name, e.generation);
      const live = extra(e.name, identity);
      const provider = this.providers(e.spec.backend);
      // A backend that is missing or cannot be reached makes its active targets unreachable, with the reason.
      const down = provider
        ? provider.unavailable?.()
        : (this.missing(e.spec.backend) ?? `backend "${e.spec.backend}" is not available`);
      const problem = live.problem ?? down;
      const info: TargetInfo = {
        name: e.name,
        generation: e.generation,
        source: e.source,
        state: problem && e.state === 'active' ? 'unreachable' : e.state,
        backend: e.spec.backend,
        spec: publicSpec(e.spec as Record<string, unknown>, provider?.fields),
        is_default: e.name === cfg.defaultTarget,
      };
      if (live.cwd ?? e.spec.cwd) info.cwd = live.cwd ?? e.spec.cwd;
      if (provider) info.flags = flagsOf(provider, e.spec);
      // Where agent work runs: as its environment found it (an attached container's settings), else as its spec says.
      const sandbox = targetSandbox(live.sandbox, provider, e.spec);
      if (sandbox) info.sandbox = sandbox;
      if (problem) info.problem = problem;
      if (live.health) info.health = live.health;
      if (live.cwd_problem) info.cwd_problem = live.cwd_problem;
      if (e.record) {
        info.provider = e.record.provider;
        info.owner_id = e.record.owner_id;
        info.created_at = e.record.created_at;
        info.updated_at = e.record.updated_at;
      }
      return info;
    });
  }
}

function frozenFlags(flags: ProviderFlags): Readonly<ProviderFlags> {
  return Object.freeze({ ...flags, strip_env_keys: [...flags.strip_env_keys] });
}
