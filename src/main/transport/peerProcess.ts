// Which local process is at the other end of a loopback TCP connection, and its ancestry, read from Linux /proc.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  /** The controlling terminal's device number; 0 when the process has none. */
  ttyNr: number;
}

/** One process's /proc/<pid>/stat fields, or undefined when it is gone or unreadable. */
export function procInfo(pid: number): ProcInfo | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // the process is gone: no parent to follow
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (i: number): number => Number(rest[i]);
  return { pid, ppid: n(1), pgrp: n(2), session: n(3), ttyNr: n(4) };
}

/** The process and its parents up to (not including) pid 0, nearest first. */
export function ancestry(pid: number): ProcInfo[] {
  const chain: ProcInfo[] = [];
  const seen = new Set<number>();
  for (let p = procInfo(pid); p && !seen.has(p.pid); p = p.ppid > 0 ? procInfo(p.ppid) : undefined) {
    seen.add(p.pid);
    chain.push(p);
  }
  return chain;
}

/** Every process whose parent is `parent`. */
export function childrenOf(parent: number): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of listProc()) {
    const info = procInfo(Number(name));
    if (info?.ppid === parent) out.push(info);
  }
  return out;
}

function listProc(): string[] {
  try {
    return readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    // no /proc: no processes to look at
    return [];
  }
}

/** The inode of the client end of a TCP connection from `clientPort` to `serverPort` (IPv4 or IPv6). */
export function clientSocketInode(clientPort: number, serverPort: number): string | undefined {
  const hex = (port: number): string => port.toString(16).toUpperCase().padStart(4, '0');
  const local = `:${hex(clientPort)}`;
  const remote = `:${hex(serverPort)}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      // no such table (no IPv6): nothing in it
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if (f[1]!.endsWith(local) && f[2]!.endsWith(remote) && f[9] !== '0') return f[9];
    }
  }
  return undefined;
}

/** The process holding a socket with this inode open (the first one found; a forked child may share it). */
export function pidHoldingSocket(inode: string): number | undefined {
  const link = `socket:[${inode}]`;
  for (const name of listProc()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${name}/fd`);
    } catch {
      // gone, or not ours to look into
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${name}/fd/${fd}`) === link) return Number(name);
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return undefined;
}

/** The pid of the local process at the client end of a loopback connection, when /proc can tell. */
export function peerPid(clientPort: number, serverPort: number): number | undefined {
  const inode = clientSocketInode(clientPort, serverPort);
  return inode ? pidHoldingSocket(inode) : undefined;
}
