// Where a target's agent work runs, worked out one way for TargetInfo, the approval step and its path probe.
import type { ProviderFlags, SandboxInfo, TargetSpec } from '../../../shared/targets.js';
import type { BackendDeclaration } from '../backends/index.js';

/**
 * As the target's Environment found it (an attached container's settings, an SSH host with or without bubblewrap),
 * else as its backend's declaration says for the spec; undefined when neither says.
 */
export function targetSandbox(
  found: SandboxInfo | undefined,
  declaration: Pick<BackendDeclaration, 'sandboxFor'> | undefined,
  spec: Readonly<TargetSpec>,
): SandboxInfo | undefined {
  return found ?? declaration?.sandboxFor?.(spec);
}

/**
 * Whether the target's work runs on this machine (a local target, sandboxed or not), so that its paths are this
 * machine's: neither remote nor in a container, and its declaration says where it runs.
 */
export function runsOnThisMachine(
  flags: Pick<ProviderFlags, 'is_remote' | 'is_container'>,
  declaration: Pick<BackendDeclaration, 'sandboxFor'> | undefined,
  spec: Readonly<TargetSpec>,
): boolean {
  return !flags.is_remote && !flags.is_container && targetSandbox(undefined, declaration, spec) !== undefined;
}
