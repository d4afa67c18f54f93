// The one line a failed call gets when the sandbox is the likely cause (pure): what was refused, and the way out.
import type { SandboxPolicy } from './sandboxPolicy.js';
import { within } from './sandboxPolicy.js';

/** How a person lets one command out of the sandbox (the terminal tool's argument; they approve it once). */
export const WAY_OUT = 'a person may allow this one call outside the sandbox: run it again with outside_sandbox: true';

/** Errors a write outside the writable roots, or a read of a masked path, gives inside. */
const REFUSAL = /\b(Read-only file system|Permission denied|Operation not permitted|EROFS|EACCES|EPERM)\b/;
/**
 * A path in an error line, without the quotes tools put around it (the curly ones as escapes: one non-ASCII character
 * in the bundle makes V8 hold the Core's whole source at two bytes a character).
 */
const PATH = /\/[^\s:'"`\u2018\u2019]+/g;
/** Errors that mean the network is not there. */
const NO_NETWORK = new RegExp(
  String.raw`\b(Network is unreachable|Temporary failure in name resolution|Could not resolve host|ENETUNREACH|` +
    String.raw`EAI_AGAIN|getaddrinfo)\b`,
);

/** The protected path (deny-write table, a pin's neighbour) that holds `path`, if any. */
export function deniedIn(path: string, policy: SandboxPolicy): string | undefined {
  return [...policy.readOnly, ...policy.missingDenied].find((r) => within(path, r));
}

/** A connection to a loopback port refused (curl, Python, Node, psql…): the port, where the line names it. */
const LOOPBACK_REFUSED = new RegExp(
  [
    String.raw`(?:127\.0\.0\.1|localhost|\[?::1\]?)(?: port |:)(\d+)[^\n]*(?:refused|Couldn't connect)`,
    String.raw`(?:refused|ECONNREFUSED)[^\n]*(?:127\.0\.0\.1|localhost|::1)[:\s]+(?:port\s+)?(\d+)`,
    String.raw`\/dev\/tcp\/(?:127\.0\.0\.1|localhost)\/(\d+): Connection refused`,
  ].join('|'),
);

/** The writable places, as a person reads them. */
export function writableList(policy: SandboxPolicy): string {
  return [policy.writable[0] ?? '', '/tmp', ...policy.writable.slice(1)].filter(Boolean).join(', ');
}

/**
 * The note for a call that failed (exit status not 0) in the sandbox, or undefined when its output shows nothing the
 * sandbox refused. A path the output names that is masked says so; a refused write names the writable places.
 */
export function sandboxNote(
  output: string,
  exitCode: number,
  policy: SandboxPolicy,
  /** What the sandbox's proxy refused while the call ran (netProxy.ts recentRefusals). */
  refusedConnections: readonly string[] = [],
): string | undefined {
  if (exitCode === 0) return undefined;
  if (refusedConnections.length) return `[sandbox: the network refused ${refusedConnections.join('; ')}]`;
  const masked = [policy.profile, ...policy.maskedDirs.map((d) => d.path), ...policy.maskedFiles].find((m) =>
    output.includes(m),
  );
  if (masked) return `[sandbox: ${masked} is hidden from agent work on this target; ${WAY_OUT}]`;
  const line = output.split('\n').find((l) => REFUSAL.test(l));
  const refused = line === undefined ? undefined : REFUSAL.exec(line);
  if (line !== undefined && refused) {
    // The path is before the error (`touch: cannot touch '/etc/x': …`) or after it (Python's `…: '/etc/x'`).
    const path = line.slice(0, refused.index).match(PATH)?.pop() ?? line.slice(refused.index).match(PATH)?.[0];
    const denied = path ? deniedIn(path, policy) : undefined;
    if (path && denied)
      return (
        `[sandbox: ${denied} stays read-only: it is in the deny-write table (what runs later outside the sandbox: ` +
        `shell start-up, git config and hooks, toolchains, tools' and agents' configs); ${WAY_OUT}]`
      );
    if (path && policy.writable.some((w) => within(path, w))) return undefined;
    const what = path ? `${path}: ${refused[1]}` : refused[1];
    return `[sandbox: refused (${what}); writes are allowed only in ${writableList(policy)}; ${WAY_OUT}]`;
  }
  if (!policy.network && NO_NETWORK.test(output))
    return `[sandbox: this target has no network (sandbox.network: false); ${WAY_OUT}]`;
  // A loopback port nothing listens on inside: the host's services are not in the sandbox's network.
  const port = policy.network ? LOOPBACK_REFUSED.exec(output) : null;
  if (port)
    return (
      `[sandbox: this machine's loopback services are not reachable from the sandbox (its loopback is its own); ` +
      `a person may add ${port[1] ?? port[2] ?? port[3]} to the target's sandbox.allow_local_ports]`
    );
  return undefined;
}
