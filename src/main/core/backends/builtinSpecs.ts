// The built-in backends' spec declarations, without their connection code: what the registry and the CLI's file readers check against.
import type { SpecDeclaration } from '../../../shared/specFields.js';
import { localSpec } from './local/fields.js';
import { sshSpec } from './ssh/fields.js';
import { dockerSpec } from './docker/fields.js';

/** In the order of builtinProviders (builtins.test.ts keeps the two in step). */
export const builtinSpecs: readonly SpecDeclaration[] = [localSpec, sshSpec, dockerSpec];

/** A built-in backend's spec declaration by name. */
export function builtinSpec(backend: string): SpecDeclaration | undefined {
  return builtinSpecs.find((s) => s.backend === backend);
}
