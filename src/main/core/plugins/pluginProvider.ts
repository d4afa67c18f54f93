// A plugin backend as the Core sees it: a BackendProvider built from what the plugin declared, its environments proxied
// to the host.
import { fieldInfos, specSchemaOf } from '../../../shared/specFields.js';
import type { ManifestFlags } from '../../../shared/plugins.js';
import type { DeclaredFlags, ProviderDeclaration } from '../../../shared/pluginRpc.js';
import type { ProviderFlags, TargetSpec } from '../../../shared/targets.js';
import { withFlagDefaults, type BackendProvider } from '../backends/index.js';
import { PluginEnvironment, secretsOf, type PluginLink } from './pluginEnvironment.js';
import { writableHostPathIn } from './writableHostPath.js';

/** What the Core holds of a plugin backend beyond the provider contract: who provides it and its display name. */
export interface PluginBackend extends BackendProvider {
  readonly plugin: string;
  readonly display_name: string;
}

/** How long a plugin's `flags_for` may take; until it answered, the target's commands ask. */
const flagsForDeadlineMs = 10_000;
/** A plugin's probe of one target: a look, so it gets less time than creating an environment. */
const probeDeadlineMs = 15_000;
/** Answers kept per backend (one per distinct spec); past it they are asked again. */
const flagsForCacheMax = 256;

/**
 * The flags a backend gets: what it declared, held to what its manifest asked for (what the person was shown when
 * enabling it): it skips asking, and offers shells, only if the manifest says so.
 */
export function heldToManifest(declared: DeclaredFlags, manifest: ManifestFlags | undefined): ProviderFlags {
  const f = withFlagDefaults(declared);
  const m = manifest ?? {};
  const mayStream = m.supports_streams === true;
  return {
    ...f,
    skip_container_guards: f.skip_container_guards && (m.skip_container_guards ?? m.is_container ?? false),
    supports_streams: f.supports_streams && mayStream,
    supports_stdin: f.supports_stdin && mayStream,
    supports_pty: f.supports_pty && mayStream && m.supports_pty === true,
  };
}

/** A spec as a cache key: the same keys and values give the same text, whatever their order. */
function specKey(spec: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(spec, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export interface PluginBackendLink extends PluginLink {
  problem(): string | undefined;
  /** A target's flags became known (its `flags_for` answered): targets are shown again. */
  changed(): void;
  log(message: string): void;
}

export function pluginProvider(
  decl: ProviderDeclaration,
  link: PluginBackendLink,
  manifest?: ManifestFlags,
): PluginBackend {
  const fields = fieldInfos(decl.fields);
  const describeKeys = decl.fields.filter((f) => f.required && !f.private && !f.secret_ref).map((f) => f.key);
  const secretRefKeys = fields.filter((f) => f.type === 'secret_ref').map((f) => f.key);
  const flags = heldToManifest(decl.flags, manifest);
  const answers = new Map<string, ProviderFlags>();
  const asking = new Set<string>();

  /** Ask the plugin for one spec's flags in the background; the answer is there for the next snapshot. */
  const ask = (key: string, spec: Readonly<TargetSpec>): void => {
    if (asking.has(key)) return;
    let host: ReturnType<typeof link.host>;
    try {
      host = link.host();
    } catch {
      return; // its host is down: the target is unreachable anyway, and is asked about when it is back
    }
    asking.add(key);
    host
      .call('flags_for', { backend: decl.name, spec: { ...spec } }, flagsForDeadlineMs)
      .then(
        (answer) => {
          if (answers.size >= flagsForCacheMax) answers.clear();
          answers.set(key, heldToManifest({ ...decl.flags, ...answer }, manifest));
          link.changed();
        },
        (err: unknown) => {
          // Unanswered, the target keeps asking before dangerous commands; the plugin's author finds why in the log.
          link.log(`flags_for failed for backend ${decl.name}: ${err instanceof Error ? err.message : String(err)}`);
        },
      )
      .finally(() => asking.delete(key));
  };

  const flagsFor = (spec: Readonly<TargetSpec>): ProviderFlags => {
    let f = flags;
    if (decl.flags_for) {
      const key = specKey(spec);
      const answered = answers.get(key);
      if (answered) f = answered;
      else {
        f = { ...flags, skip_container_guards: false };
        ask(key, spec);
      }
    }
    // Whatever the plugin says: a target that can write this machine's files is no sandbox to skip asking for.
    if (f.skip_container_guards && writableHostPathIn(spec) !== undefined) f = { ...f, skip_container_guards: false };
    return f;
  };

  return {
    backend: decl.name,
    plugin: link.plugin,
    display_name: decl.display_name,
    fields,
    exactly_one: decl.exactly_one,
    specSchema: specSchemaOf(decl.name, fields, decl.exactly_one),
    // The required, public fields say where a target points (a plugin declares nothing more to describe it by).
    describe: (spec) =>
      describeKeys
        .map((k) => spec[k])
        .filter((v) => typeof v === 'string' || typeof v === 'number')
        .join(' '),
    flags,
    flagsFor,
    unavailable: () => link.problem(),
    createEnvironment: (snapshot, ctx) => new PluginEnvironment(snapshot, ctx, link, secretRefKeys),
    // Only the plugin's own look: a health check never creates an environment (which may start, and bill, a sandbox).
    ...(decl.probe
      ? {
          idleProbe: async (snapshot) =>
            link
              .host()
              .call(
                'probe_target',
                { backend: decl.name, spec: { ...snapshot.spec }, secrets: secretsOf(snapshot.spec, secretRefKeys) },
                probeDeadlineMs,
              ),
        }
      : {}),
  };
}
