// Who may approve: a CLI connection may only when the process behind it sits at a terminal of its own and is not,
// nor descends from, a process the Core started for a tool call or a background process (an agent's command).
import { ancestry, childrenOf, peerPid } from './peerProcess.js';

/**
 * Why the local process at the client end of this loopback connection may not approve, or undefined when it may.
 * Tool calls and background processes are the Core's children without a terminal (spawned detached, each the leader
 * of its own session); pane shells are children with a pty (a person types there) and may approve.
 */
export function cliApproverRefusal(clientPort: number, serverPort: number, corePid = process.pid): string | undefined {
  if (process.platform !== 'linux') return 'this system cannot show which process is asking (no /proc)';
  const pid = peerPid(clientPort, serverPort);
  if (pid === undefined) return 'cannot tell which process is asking';
  const chain = ancestry(pid);
  if (!chain[0] || chain[0].ttyNr === 0) return 'the asking process has no controlling terminal';
  // Sessions the Core started for tool calls: a `script` or `setsid` inside one keeps an ancestor in it.
  const toolSessions = new Set(childrenOf(corePid).filter((c) => c.ttyNr === 0 && c.session === c.pid).map((c) => c.session));
  for (const p of chain) {
    if ((p.ppid === corePid && p.ttyNr === 0) || toolSessions.has(p.session) || toolSessions.has(p.pgrp)) {
      return 'it runs inside a tool call or background process that Switchboard started';
    }
  }
  return undefined;
}
