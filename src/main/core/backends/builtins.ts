// The built-in backend providers: the one list of which backends exist before plugins add theirs.
import type { z } from 'zod';
import type { BackendProvider } from './provider.js';
import { localProvider } from './local/localProvider.js';
import { sshProvider } from './ssh/sshProvider.js';
import { dockerProvider } from './docker/dockerProvider.js';

export const builtinProviders: readonly BackendProvider[] = [localProvider, sshProvider, dockerProvider];

/** A built-in provider by backend name. */
export function builtinProvider(backend: string): BackendProvider | undefined {
  return builtinProviders.find((p) => p.backend === backend);
}

/** The built-in backends' spec schemas by name, as a config reader without a Core needs them. */
export function builtinSpecSchemas(): Map<string, z.ZodType> {
  return new Map(builtinProviders.map((p) => [p.backend, p.specSchema]));
}
