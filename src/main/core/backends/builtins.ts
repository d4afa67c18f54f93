// The built-in backend providers: builtinSpecs.ts's declarations, each with its factory (this loads the backend
// libraries).
import type { BackendProvider } from './provider.js';
import { localProvider } from './local/localProvider.js';
import { sshProvider } from './ssh/sshProvider.js';
import { dockerProvider } from './docker/dockerProvider.js';

export const builtinProviders: readonly BackendProvider[] = [localProvider, sshProvider, dockerProvider];

/** A built-in provider by backend name. */
export function builtinProvider(backend: string): BackendProvider | undefined {
  return builtinProviders.find((p) => p.backend === backend);
}
