// Whether a CLI connection (or, with no Core running, the CLI itself) is a person's: the process sits at a terminal of
// its own, shares every namespace with the Core (an agent sandbox has its own), and is not, nor descends from, a
// process the Core started for a tool call or a background process (an agent's command).
import { readFileSync, readlinkSync } from 'node:fs';
import { AGENT_VARIABLE } from '../core/processes/index.js';
import { ancestry, childrenOf, peerPid } from './peerProcess.js';

/** The namespaces an agent sandbox unshares (core/sandbox): a process in any other than the Core's is inside one. */
const SANDBOX_NAMESPACES = ['mnt', 'pid', 'ipc', 'uts', 'user'] as const;

/**
 * The namespaces of `pid` (or this process) that differ from this process's own; unreadable ones count as differing.
 */
export function foreignNamespaces(pid: number, self: number | 'self' = 'self'): string[] {
  const link = (p: number | 'self', ns: string): string | undefined => {
    try {
      return readlinkSync(`/proc/${p}/ns/${ns}`);
    } catch {
      // no /proc or no such process: its namespace is unknown
      return undefined;
    }
  };
  return SANDBOX_NAMESPACES.filter((ns) => {
    const theirs = link(pid, ns);
    return theirs === undefined || theirs !== link(self, ns);
  });
}

/** Whether a process's environment holds the mark of agent work (core/processes/coreRuns.ts AGENT_VARIABLE). */
function carriesAgentMark(pid: number): boolean {
  try {
    return `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(`\0${AGENT_VARIABLE}=`);
  } catch {
    // Gone, or not ours to read: nothing to learn from it.
    return false;
  }
}

/**
 * Why the local process at the client end of this loopback connection is not a person's, or undefined when it is.
 * Tool calls and background processes are the Core's children without a terminal (spawned detached, each the leader
 * of its own session); pane shells are children with a pty (a person types there) and may approve.
 */
export function cliPersonRefusal(clientPort: number, serverPort: number, corePid = process.pid): string | undefined {
  if (process.platform !== 'linux') return 'this system cannot show which process is asking (no /proc)';
  const pid = peerPid(clientPort, serverPort);
  if (pid === undefined) return 'cannot tell which process is asking';
  return personRefusal(pid, corePid);
}

/**
 * Why process `pid` is not a person's, or undefined when it is: the Core's judgement of a connecting CLI, with the
 * Core's pid, and a CLI's of itself when no Core runs (`corePid` undefined). Without a Core there are no namespaces
 * to compare with and no tool sessions to find; no agent sandbox of the profile lives then either (each dies with its
 * Core, bwrap's --die-with-parent), so what is left to ask is a terminal, a user namespace other than this machine's
 * own (an unprivileged sandbox always has one) and the mark of agent work.
 */
export function personRefusal(pid: number, corePid?: number): string | undefined {
  if (process.platform !== 'linux') return 'this system cannot show which process is asking (no /proc)';
  const chain = ancestry(pid);
  if (!chain[0] || chain[0].ttyNr === 0) return 'the asking process has no controlling terminal';
  // The one test a double fork, setsid, script or tmux cannot pass: a process in an agent sandbox stays in its
  // namespaces, whatever it starts. (A person's own terminal shares the Core's.)
  const foreign =
    corePid === undefined
      ? ownUserNamespace(pid)
        ? ['user']
        : []
      : foreignNamespaces(pid, corePid === process.pid ? 'self' : corePid);
  if (foreign.length > 0) {
    const whose = corePid === undefined ? "this machine's" : "the Core's";
    return (
      `the asking process runs inside an agent sandbox (its ${foreign.join(', ')} ` +
      `namespace${foreign.length > 1 ? 's differ' : ' differs'} from ${whose})`
    );
  }
  // Sessions the Core started for tool calls: a `script` or `setsid` inside one keeps an ancestor in it.
  const toolSessions = new Set(
    corePid === undefined
      ? []
      : childrenOf(corePid)
          .filter((c) => c.ttyNr === 0 && c.session === c.pid)
          .map((c) => c.session),
  );
  for (const p of chain) {
    if (carriesAgentMark(p.pid))
      return "it was started by an agent's tool call (its environment carries the mark of one)";
    if ((p.ppid === corePid && p.ttyNr === 0) || toolSessions.has(p.session) || toolSessions.has(p.pgrp)) {
      return 'it runs inside a tool call or background process that Switchboard started';
    }
  }
  return undefined;
}

/** The identity map of the machine's first user namespace: every id is itself. */
const INITIAL_UID_MAP = /^\s*0\s+0\s+4294967295\s*$/;

/** Whether `pid` runs in a user namespace of its own (uid_map is not the machine's identity map); unreadable: yes. */
function ownUserNamespace(pid: number): boolean {
  try {
    return !INITIAL_UID_MAP.test(readFileSync(`/proc/${pid}/uid_map`, 'utf8'));
  } catch {
    // Gone or hidden: nothing vouches for it.
    return true;
  }
}
