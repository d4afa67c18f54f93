// The built-in backends' spec declarations: the one list of builtins.ts, seen as declarations (what the registry and the CLI's file readers check against).
import type { SpecDeclaration } from '../../../shared/specFields.js';
import { builtinProviders } from './builtins.js';

export const builtinSpecs: readonly SpecDeclaration[] = builtinProviders;

/** A built-in backend's spec declaration by name. */
export function builtinSpec(backend: string): SpecDeclaration | undefined {
  return builtinSpecs.find((s) => s.backend === backend);
}
