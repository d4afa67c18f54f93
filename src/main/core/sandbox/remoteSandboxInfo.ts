// What TargetInfo says of an SSH target's sandbox (pure, small: the CLI's declarations import it).
import type { SandboxInfo } from '../../../shared/targets.js';
import type { SandboxSetting } from '../../../shared/specFields.js';

/** What the sandbox probe on a host found, as far as saying where work runs goes. */
export interface RemoteBwrap {
  bwrap: { ok: true } | { ok: false; why: string };
}

/** What to install, where the host has no bubblewrap. */
const INSTALL = 'install bubblewrap from the host\u2019s packages (apt install bubblewrap, dnf install bubblewrap)';

/**
 * What TargetInfo says of an SSH target's sandbox (pure): `off` in its spec, or what the host answered (`host`: the
 * account and host, as the connection names them). Undefined: nothing is known until the host answers.
 */
export function remoteSandboxInfo(
  setting: SandboxSetting | undefined,
  facts: RemoteBwrap | undefined,
  host?: string,
): SandboxInfo | undefined {
  const on = host ? { host } : {};
  if (setting === 'off') return { state: 'unsandboxed', reason: 'sandbox: off in its spec', ...on };
  if (!facts) return undefined;
  if (!facts.bwrap.ok) {
    const missing = /not installed/.test(facts.bwrap.why);
    return {
      state: 'unsandboxed',
      reason: facts.bwrap.why,
      hint: missing ? INSTALL : 'let the host\u2019s users create namespaces (kernel.unprivileged_userns_clone=1)',
      ...on,
    };
  }
  return { state: 'sandboxed', kind: 'bubblewrap', network: setting?.network ?? true, ...on };
}
