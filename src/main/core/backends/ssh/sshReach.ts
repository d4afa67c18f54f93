// The SSH backend's health look at a target: a TCP connect to its first hop, no handshake, no login, nothing opened
// on the server (a fleet of hundreds probed every minute costs each host one accepted and closed connection).
import { connect } from 'node:net';
import { homedir, userInfo } from 'node:os';
import type { ProbeResult, ProviderContext, TargetSnapshot } from '../provider.js';
import { toErrorPayload, errorLine } from '../../../../shared/errors.js';
import { SshSpec } from './fields.js';
import { loadSshConfig } from './sshConfig.js';
import { hopLabel, resolveRoute, type SshHop } from './sshRoute.js';

/** A TCP connect that has not answered in this long counts as unreachable. */
export const reachDeadlineMs = 5_000;
/** ~/.ssh/config is read once for a burst of looks (a fleet's), not once per target. */
const configKeptMs = 10_000;
let kept: { at: number; config: ReturnType<typeof loadSshConfig> } | undefined;

function sshConfigNow(home: string): ReturnType<typeof loadSshConfig> {
  if (!kept || Date.now() - kept.at > configKeptMs) kept = { at: Date.now(), config: loadSshConfig(home) };
  return kept.config;
}

export async function sshReach(snapshot: TargetSnapshot, ctx: ProviderContext): Promise<ProbeResult> {
  const spec = SshSpec.safeParse(snapshot.spec);
  if (!spec.success) return { ok: false, problem: `target "${snapshot.name}" is not a valid SSH target` };
  let first: SshHop;
  try {
    const home = homedir();
    const hops = resolveRoute(snapshot.name, spec.data, {
      resolveSpec: (name) => ctx.resolveSpec(name),
      sshConfig: await sshConfigNow(home),
      local: { home, user: userInfo().username },
    });
    first = hops[0]!;
  } catch (err) {
    return { ok: false, problem: errorLine(toErrorPayload(err)) };
  }
  const { host, port } = first;
  const via = first.target === snapshot.name ? '' : ` (jump host of ${snapshot.name})`;
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (r: ProbeResult): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(
      () => done({ ok: false, problem: `${host}:${port}${via} did not answer within ${reachDeadlineMs / 1000}s` }),
      reachDeadlineMs,
    );
    socket.once('connect', () => done({ ok: true, detail: `${hopLabel(first)}${via} accepts connections` }));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done({ ok: false, problem: `cannot connect to ${host}:${port}${via}: ${err.code ?? err.message}` }),
    );
  });
}
