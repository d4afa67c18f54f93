// What TargetInfo says of an SSH target's sandbox (pure, small: the CLI's declarations import it).
import type { SandboxInfo } from '../../../shared/targets.js';
import type { SandboxSetting } from '../../../shared/specFields.js';

/** What the sandbox probe on a host found, as far as saying where work runs goes. */
export interface RemoteBwrap {
  bwrap: { ok: true } | { ok: false; why: string };
}

/** What to install, where the host has no bubblewrap. */
const INSTALL = 'install bubblewrap from the host\u2019s packages (apt install bubblewrap, dnf install bubblewrap)';

/** What TargetInfo says of an SSH target's sandbox, once the host answered (pure). */
export function remoteSandboxInfo(setting: SandboxSetting | undefined, facts: RemoteBwrap | undefined): SandboxInfo {
  if (setting === 'off') return { state: 'unsandboxed', reason: 'sandbox: off in its spec' };
  if (!facts) return { state: 'sandboxed', kind: 'bubblewrap', network: setting?.network ?? true };
  if (!facts.bwrap.ok)
    return {
      state: 'unsandboxed',
      reason: `${facts.bwrap.why}${/not installed/.test(facts.bwrap.why) ? `; ${INSTALL}` : ''}`,
    };
  return { state: 'sandboxed', kind: 'bubblewrap', network: setting?.network ?? true };
}
