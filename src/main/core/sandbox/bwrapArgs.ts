// The bubblewrap command line for one sandboxed run (pure): the host's / read-only, the policy's writable roots, pins,
// masks and read-only paths on top, namespaces of its own (user, pid, ipc, uts, and the network where asked) with no
// capability in any, and the seccomp filter.
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
  /**
   * A network namespace of its own, with only `lo`: when the target has no network, or when the run is not started
   * inside the namespace of the sandbox's helper (which reaches out only through the Core's proxy).
   */
  unshareNet: boolean;
}

/** What the runner opened for bwrap: descriptors, numbered as the child sees them. */
export interface BwrapSources {
  /**
   * The descriptor of a writable bind's source, opened and checked by the runner (a folder that is what its path says,
   * no link in it), so a path swapped for a link between the check and the mount binds nothing else. Asked once per
   * bind: bwrap closes each descriptor it binds.
   */
  fd?: (path: string) => number | undefined;
  /** The compiled seccomp filter (seccomp.ts). */
  seccomp?: number;
}

/**
 * bwrap's arguments. Order matters: bwrap applies them in turn, and a later mount covers an earlier one. So /tmp is
 * replaced first (a workspace or profile under /tmp is bound again after it), then the writable roots and the pins in
 * them, the profile's mask, the read-only paths (which win over a writable root that holds them), and last the masks
 * of credential stores and host sockets (which win over a read-only folder that holds them).
 */
export function bwrapArgs(policy: SandboxPolicy, run: BwrapRun, sources: BwrapSources = {}): string[] {
  // bwrap means to make /proc/sys read-only itself, but skips it (it asks access(W_OK), which procfs answers EACCES);
  // a uid that is root's outside may then write the host's sysctls (core_pattern runs a program as root), no
  // capability needed. The seccomp filter keeps anything inside from unmounting these.
  const a = [
    ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys'],
    ...['--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger'],
  ];
  const bind = (src: string, dest: string): void => {
    const fd = sources.fd?.(src);
    if (fd === undefined) a.push('--bind', src, dest);
    else a.push('--bind-fd', String(fd), dest);
  };
  bind(policy.tmp, '/tmp');
  for (const w of policy.writable) bind(w, w);
  for (const d of policy.pins) bind(d, d);
  a.push('--tmpfs', policy.profile);
  if (policy.caches) bind(policy.caches, policy.caches);
  for (const w of policy.insideProfile) bind(w, w);
  a.push('--remount-ro', policy.profile);
  for (const p of policy.readOnly) a.push('--ro-bind', p, p);
  for (const p of policy.placeholders) a.push('--ro-bind', p.path, p.path);
  // The masks last: a read-only folder bound after them (~/.cargo) would show its credentials file again.
  for (const d of policy.maskedDirs) {
    a.push('--tmpfs', d.path);
    for (const k of d.keep) a.push('--ro-bind', k, k);
    a.push('--remount-ro', d.path);
  }
  for (const f of policy.maskedFiles) a.push('--ro-bind', '/dev/null', f);
  a.push('--unshare-user', '--disable-userns', '--unshare-pid', '--unshare-ipc', '--unshare-uts');
  if (run.unshareNet) a.push('--unshare-net');
  a.push('--cap-drop', 'ALL', '--die-with-parent');
  if (run.newSession) a.push('--new-session');
  if (sources.seccomp !== undefined) a.push('--seccomp', String(sources.seccomp));
  a.push('--setenv', 'TMPDIR', '/tmp', '--chdir', run.cwd, '--', ...run.argv);
  return a;
}
