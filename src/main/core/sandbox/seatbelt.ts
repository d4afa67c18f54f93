// The macOS Seatbelt (sandbox-exec) profile with the rules bwrapArgs applies on Linux (pure): writes only to the
// writable roots and the private tmp, no reads of the profile or the credential stores, the network rule.
import type { SandboxPolicy } from './sandboxPolicy.js';

/** A string literal in Seatbelt's scheme syntax. */
function lit(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The profile text. Seatbelt matches rules last-match-wins within an operation, so the denials of the masked paths
 * come after the allowances they narrow. macOS has no pid namespace: the Core's own process is out of reach of
 * `ps`-style reads only through `process-info*` (denied except for the sandbox's own processes). `/private/tmp`
 * stays readable but not writable: TMPDIR points at the private tmp.
 */
export function seatbeltProfile(policy: SandboxPolicy): string {
  const writable = [...policy.writable, policy.tmp, ...(policy.caches ? [policy.caches] : [])];
  const lines = [
    '(version 1)',
    '(allow default)',
    '(deny process-info* (with no-report))',
    '(allow process-info* (target same-sandbox))',
    '(deny file-write*)',
    `(allow file-write* ${writable.map((p) => `(subpath ${lit(p)})`).join(' ')} (literal "/dev/null") ` +
      `(literal "/dev/tty") (regex #"^/dev/fd/"))`,
    `(deny file-read* file-write* (subpath ${lit(policy.profile)}))`,
    `(allow file-read* file-write* (subpath ${lit(policy.tmp)}))`,
    ...(policy.caches ? [`(allow file-read* file-write* (subpath ${lit(policy.caches)}))`] : []),
    ...policy.insideProfile.map((w) => `(allow file-read* file-write* (subpath ${lit(w)}))`),
  ];
  for (const d of policy.maskedDirs) {
    lines.push(`(deny file-read* file-write* (subpath ${lit(d.path)}))`);
    for (const k of d.keep) lines.push(`(allow file-read* (literal ${lit(k)}))`);
  }
  for (const f of policy.maskedFiles) lines.push(`(deny file-read* file-write* (literal ${lit(f)}))`);
  // Seatbelt denies a path whether or not it exists: a missing one needs no placeholder.
  for (const p of [...policy.readOnly, ...policy.missingDenied]) lines.push(`(deny file-write* (subpath ${lit(p)}))`);
  // Every repository's config and hooks, those made after the sandbox started too.
  lines.push(String.raw`(deny file-write* (regex #"/\.git/(config|hooks)(/|$)"))`);
  if (!policy.network) lines.push('(deny network*)', '(allow network* (local unix))');
  return lines.join('\n') + '\n';
}
