// Whether an OS sandbox can run on this machine: asked once per process (cached), never assumed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { seccompArch, seccompProgram } from './seccomp.js';

export type SandboxKind = 'bubblewrap' | 'seatbelt';

export type SandboxAvailability = { ok: true; kind: SandboxKind } | { ok: false; reason: string };

/**
 * The probe run: the namespaces, mounts and lack of privilege every sandboxed run needs (a user namespace of its own
 * whoever runs the Core, none allowed inside, no capability), on the smallest command there is.
 */
export const PROBE_ARGS = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--unshare-user',
  '--disable-userns',
  '--unshare-pid',
  '--proc',
  '/proc',
  '--ro-bind',
  '/proc/sys',
  '/proc/sys',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-net',
  '--cap-drop',
  'ALL',
  '--die-with-parent',
  '--new-session',
  '--seccomp',
  '0',
  '--',
  'true',
];

/** How long the probe may take before bubblewrap counts as unusable. */
const PROBE_TIMEOUT_MS = 5000;

let cached: SandboxAvailability | undefined;

/**
 * What this machine offers, probed on first use. `SWITCHBOARD_NO_SANDBOX=<reason>` forces the unsandboxed answer
 * (tests, a person's choice).
 */
export function sandboxAvailability(): SandboxAvailability {
  return (cached ??= probe());
}

/** Forget the cached answer (tests). */
export function resetSandboxAvailability(): void {
  cached = undefined;
}

function probe(): SandboxAvailability {
  const forced = process.env.SWITCHBOARD_NO_SANDBOX;
  if (forced) return { ok: false, reason: `SWITCHBOARD_NO_SANDBOX is set (${forced})` };
  if (process.platform === 'win32') return { ok: false, reason: 'Windows has no OS sandbox Switchboard can use' };
  if (process.platform === 'darwin') {
    return existsSync('/usr/bin/sandbox-exec')
      ? { ok: true, kind: 'seatbelt' }
      : { ok: false, reason: 'sandbox-exec is missing' };
  }
  if (process.platform !== 'linux') return { ok: false, reason: `no OS sandbox on ${process.platform}` };
  const arch = seccompArch();
  if (!arch) return { ok: false, reason: `no seccomp filter for ${process.arch} (x86_64 and aarch64 have one)` };
  // The filter goes in on stdin (the probe's command reads nothing).
  const r = spawnSync('bwrap', PROBE_ARGS, {
    encoding: 'utf8',
    timeout: PROBE_TIMEOUT_MS,
    input: seccompProgram(arch),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason: code === 'ENOENT' ? 'bubblewrap (bwrap) is not installed' : `bubblewrap did not run: ${r.error.message}`,
    };
  }
  if (r.status !== 0) {
    const said = (r.stderr ?? '').trim().split('\n')[0] ?? '';
    return {
      ok: false,
      reason: `bubblewrap cannot create its namespaces here: ${said || `exit ${r.status ?? r.signal}`}`,
    };
  }
  return { ok: true, kind: 'bubblewrap' };
}
