// The built-in backend providers: the one list of which backends exist before plugins add theirs.
import type { BackendProvider } from './provider.js';
import { localProvider } from './local/localProvider.js';
import { sshProvider } from './ssh/sshProvider.js';
import { dockerProvider } from './docker/dockerProvider.js';

export const builtinProviders: readonly BackendProvider[] = [localProvider, sshProvider, dockerProvider];

/** A built-in provider by backend name. */
export function builtinProvider(backend: string): BackendProvider | undefined {
  return builtinProviders.find((p) => p.backend === backend);
}
