// The Docker backend's classification flags for one target: a managed container of its own is a sandbox whose
// guards may be skipped; one that mounts host paths, or a container the user attached (their own), is not.
import type { ProviderFlags, TargetSpec } from '../../../../shared/targets.js';
import { withFlagDefaults } from '../provider.js';

export const dockerBaseFlags: ProviderFlags = withFlagDefaults({
  is_container: true,
  supports_streams: true,
  supports_pty: true,
  supports_stdin: true,
});

/** A bind source that is a named volume (`data:/data`), not a host path (`/home/me:/w`, `~/x:/x`, `./x:/x`). */
function isNamedVolume(source: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source);
}

/** True when a `host:container[:opts]` entry of docker_volumes mounts a path of the host. */
export function mountsHostPath(volume: string): boolean {
  const source = volume.split(':')[0] ?? '';
  return !isNamedVolume(source);
}

export function dockerFlags(spec: Readonly<TargetSpec>): ProviderFlags {
  const volumes = Array.isArray(spec.docker_volumes) ? (spec.docker_volumes as unknown[]).map(String) : [];
  const attached = typeof spec.docker_container === 'string' && spec.docker_container !== '';
  const skip = !attached && !volumes.some(mountsHostPath);
  return { ...dockerBaseFlags, skip_container_guards: skip, strip_env_keys: [...dockerBaseFlags.strip_env_keys] };
}
