// A plugin backend as the Core sees it: a BackendProvider built from what the plugin declared, its environments proxied to the host.
import { fieldInfos, specSchemaOf } from '../../../shared/specFields.js';
import type { ProviderDeclaration } from '../../../shared/pluginRpc.js';
import { withFlagDefaults, type BackendProvider } from '../backends/provider.js';
import { PluginEnvironment, type PluginLink } from './pluginEnvironment.js';

/** What the Core holds of a plugin backend beyond the provider contract: who provides it and its display name. */
export interface PluginBackend extends BackendProvider {
  readonly plugin: string;
  readonly display_name: string;
}

export function pluginProvider(decl: ProviderDeclaration, link: PluginLink & { problem(): string | undefined }): PluginBackend {
  const fields = fieldInfos(decl.fields);
  const describeKeys = decl.fields.filter((f) => f.required && !f.private && !f.secret_ref).map((f) => f.key);
  return {
    backend: decl.name,
    plugin: link.plugin,
    display_name: decl.display_name,
    fields,
    exactly_one: decl.exactly_one,
    specSchema: specSchemaOf(decl.name, fields, decl.exactly_one),
    // The required, public fields say where a target points (a plugin declares nothing more to describe it by).
    describe: (spec) => describeKeys.map((k) => spec[k]).filter((v) => typeof v === 'string' || typeof v === 'number').join(' '),
    flags: withFlagDefaults(decl.flags),
    unavailable: () => link.problem(),
    createEnvironment: (snapshot, ctx) => new PluginEnvironment(snapshot, ctx, link),
  };
}
