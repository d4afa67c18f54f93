// The bubblewrap command line for one sandboxed run (pure): the host's / read-only, the policy's writable roots and
// masks on top, fresh pid/ipc/uts namespaces and procfs, and the network cut when the policy says so.
import type { SandboxPolicy } from './sandboxPolicy.js';

export interface BwrapRun {
  /** The program and its arguments inside the sandbox. */
  argv: readonly string[];
  /** Where it starts (inside the sandbox). */
  cwd: string;
  /**
   * A new session (setsid): no controlling terminal, so nothing inside can push keys into the caller's (TIOCSTI).
   * Every non-pty run asks for it.
   */
  newSession: boolean;
}

/**
 * bwrap's arguments. Order matters: bwrap applies them in turn, and a later mount covers an earlier one. So /tmp is
 * replaced first (a workspace or profile under /tmp is bound again after it), then the writable roots, then the masks
 * (the profile, credential stores, host sockets) and the read-only persistence files, which win over a writable root
 * that holds them. Mount sources are always the host's paths, so the identity's folder is bound back in from under
 * the masked profile.
 */
export function bwrapArgs(policy: SandboxPolicy, run: BwrapRun): string[] {
  const a = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--bind', policy.tmp, '/tmp'];
  for (const w of policy.writable) a.push('--bind', w, w);
  a.push('--tmpfs', policy.profile, '--bind', policy.identityDir, policy.identityDir);
  for (const w of policy.insideProfile) a.push('--bind', w, w);
  a.push('--remount-ro', policy.profile);
  for (const d of policy.maskedDirs) {
    a.push('--tmpfs', d.path);
    for (const k of d.keep) a.push('--ro-bind', k, k);
    a.push('--remount-ro', d.path);
  }
  for (const f of policy.maskedFiles) a.push('--ro-bind', '/dev/null', f);
  for (const p of policy.readOnly) a.push('--ro-bind', p, p);
  a.push('--unshare-pid', '--unshare-ipc', '--unshare-uts');
  if (!policy.network) a.push('--unshare-net');
  a.push('--die-with-parent');
  if (run.newSession) a.push('--new-session');
  a.push('--setenv', 'TMPDIR', '/tmp', '--chdir', run.cwd, '--', ...run.argv);
  return a;
}
