// The built-in backends' declarations (spec fields, flags, display names) without their factories: what the registry
// and the CLI's file readers check against, loading no backend library.
import type { z } from 'zod';
import type { SpecDeclaration } from '../../../shared/specFields.js';
import { withFlagDefaults, type BackendDeclaration } from './provider.js';
import { localSpec } from './local/fields.js';
import { sandboxInfo, remoteSandboxInfo } from '../sandbox/index.js';
import { sshSpec, sshRemoteHost } from './ssh/fields.js';
import { dockerSpec } from './docker/fields.js';
import { dockerBaseFlags, dockerFlags } from './docker/dockerFlags.js';
import { dockerSandboxFor } from './docker/containerConfinement.js';

export const localDeclaration: BackendDeclaration = {
  ...localSpec,
  display_name: 'This machine',
  flags: withFlagDefaults({ supports_streams: true, supports_pty: true, supports_stdin: true }),
  sandboxFor: (spec) => sandboxInfo(localSpec.specSchema.safeParse(spec).data?.sandbox),
};

export const sshDeclaration: BackendDeclaration = {
  ...sshSpec,
  display_name: 'SSH',
  flags: withFlagDefaults({ is_remote: true, supports_streams: true, supports_pty: true, supports_stdin: true }),
  remoteHost: sshRemoteHost,
  // targets.quickSpec (sshHosts.ts) writes an SSH target's spec from user@host:port.
  quick_connect: true,
  // `sandbox: off` says it all; otherwise nothing is known until the host answered (its Environment reports it).
  sandboxFor: (spec) =>
    sshSpec.specSchema.safeParse(spec).data?.sandbox === 'off' ? remoteSandboxInfo('off', undefined) : undefined,
};

export const dockerDeclaration: BackendDeclaration = {
  ...dockerSpec,
  display_name: 'Docker',
  flags: dockerBaseFlags,
  flagsFor: dockerFlags,
  // A managed container holds its work in as Switchboard makes it; an attached one says so once inspected.
  sandboxFor: (spec) => dockerSandboxFor(dockerSpec.specSchema.safeParse(spec).data),
};

/** The one list of built-in backends; builtins.ts adds a factory to each. */
export const builtinSpecs: readonly BackendDeclaration[] = [localDeclaration, sshDeclaration, dockerDeclaration];

/** A built-in backend's declaration by name. */
export function builtinSpec(backend: string): BackendDeclaration | undefined {
  return builtinSpecs.find((s) => s.backend === backend);
}

/** The built-in backends' spec schemas by name, as a config reader without a Core needs them. */
export function builtinSpecSchemas(): Map<string, z.ZodType> {
  return new Map(builtinSpecs.map((p) => [p.backend, p.specSchema]));
}

/** Keys the backends declare as secret references (a key path, a password variable): named like secrets, never one. */
export function secretReferenceKeys(specs: readonly SpecDeclaration[] = builtinSpecs): ReadonlySet<string> {
  return new Set(specs.flatMap((p) => p.fields.filter((f) => f.secret_ref).map((f) => f.key)));
}
