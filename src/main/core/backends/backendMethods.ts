// The backends' slice of the Core API: which backends exist, with their flags and declared spec fields.
import type { MethodInput, MethodOutput } from '../../../shared/api.js';
import type { BackendInfo } from '../../../shared/specFields.js';
import type { BackendProvider } from './provider.js';

/** What `backends.list` says of one provider: its declarations, nothing it does. */
export function backendInfo(p: BackendProvider): BackendInfo {
  return {
    backend: p.backend,
    ...(p.display_name ? { display_name: p.display_name } : {}),
    ...(p.plugin ? { plugin: p.plugin } : {}),
    ...(p.quick_connect ? { quick_connect: true } : {}),
    flags: { ...p.flags, strip_env_keys: [...p.flags.strip_env_keys] },
    fields: p.fields.map((f) => ({ ...f })),
    exactly_one: p.exactly_one.map((g) => [...g]),
  };
}

export function backendMethods(deps: { providers: () => readonly BackendProvider[] }) {
  return {
    'backends.list': async (_input: MethodInput<'backends.list'>): Promise<MethodOutput<'backends.list'>> =>
      deps.providers().map(backendInfo),
  };
}
