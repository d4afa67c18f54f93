import { describe, expect, it } from 'vitest';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ancestry, childrenOf, peerPid, procInfo } from './peerProcess.js';
import { cliPersonRefusal, foreignNamespaces, personRefusal } from './approverCheck.js';

/** A loopback server and a client connected to it from `connector` (this process, or a child). */
async function withConnection<T>(
  fn: (clientPort: number, serverPort: number) => Promise<T> | T,
  fromChild = false,
): Promise<T> {
  const sockets: Socket[] = [];
  const server = createServer((s) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const serverPort = (server.address() as AddressInfo).port;
  const accepted = new Promise<Socket>((r) => server.once('connection', r));
  let child: ReturnType<typeof spawn> | undefined;
  let client: Socket | undefined;
  if (fromChild) {
    child = spawn(
      process.execPath,
      ['-e', `require('net').connect(${serverPort},'127.0.0.1');setTimeout(()=>{},60000)`],
      { stdio: 'ignore', detached: true },
    );
  } else {
    client = connect(serverPort, '127.0.0.1');
  }
  const s = await accepted;
  try {
    return await fn(s.remotePort!, serverPort);
  } finally {
    client?.destroy();
    if (child?.pid) process.kill(-child.pid, 'SIGKILL');
    for (const x of sockets) x.destroy();
    server.close();
  }
}

describe.skipIf(process.platform !== 'linux')('who is at the other end', () => {
  it('finds the process holding the client end of a loopback connection', async () => {
    expect(await withConnection((c, s) => peerPid(c, s))).toBe(process.pid);
  });

  it('reads a process and its ancestry', () => {
    const me = procInfo(process.pid)!;
    expect(me.ppid).toBe(process.ppid);
    expect(
      ancestry(process.pid)
        .map((p) => p.pid)
        .slice(0, 2),
    ).toEqual([process.pid, process.ppid]);
  });

  it('refuses a child the Core started without a terminal (how tool calls run)', async () => {
    const why = await withConnection((c, s) => cliPersonRefusal(c, s), true);
    expect(why).toMatch(/no controlling terminal|inside a tool call/);
  });
});

/**
 * A `sleep` started under `script` (a terminal of its own), through `wrap` (`env X=1`, `unshare --user`); its pid once
 * it runs, and a way to end it.
 */
async function atTerminal(wrap: string[]): Promise<{ pid: number; end(): void }> {
  const child = spawn('script', ['-qec', [...wrap, 'sleep', '30'].join(' '), '/dev/null'], {
    stdio: 'ignore',
    detached: true,
  });
  let pid: number | undefined;
  for (let i = 0; i < 100 && pid === undefined; i++) {
    await new Promise((r) => setTimeout(r, 50));
    pid = childrenOfAny(child.pid!).find((p) => /^sleep\0/.test(cmdline(p)));
  }
  if (pid === undefined) throw new Error('the sleep under script did not start');
  return { pid, end: () => process.kill(-child.pid!, 'SIGKILL') };
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    // gone meanwhile
    return '';
  }
}

describe.skipIf(process.platform !== 'linux')('a CLI judging itself with no Core running', () => {
  it('refuses a process without a terminal', () => {
    const tty = procInfo(process.pid)!.ttyNr;
    if (tty !== 0) console.warn('this test process has a terminal: the refusal without one is shown by a child');
    expect(personRefusal(process.pid)).toBe(tty === 0 ? 'the asking process has no controlling terminal' : undefined);
  });

  it('takes a process at a terminal of its own', async () => {
    const p = await atTerminal([]);
    try {
      expect(personRefusal(p.pid)).toBeUndefined();
    } finally {
      p.end();
    }
  });

  it('refuses one carrying the mark of agent work', async () => {
    const marked = await atTerminal(['env', 'SB_AGENT_WORK=1']);
    try {
      expect(personRefusal(marked.pid)).toMatch(/started by an agent's tool call/);
    } finally {
      marked.end();
    }
  });

  it('refuses one in a user namespace of its own', async () => {
    let unshare = true;
    try {
      execFileSync('unshare', ['--user', 'true'], { stdio: 'ignore' });
    } catch {
      unshare = false;
    }
    if (!unshare) {
      console.warn('unshare --user does not work here: the user namespace refusal cannot be shown');
      return;
    }
    const inside = await atTerminal(['unshare', '--user']);
    try {
      expect(personRefusal(inside.pid)).toMatch(
        /inside an agent sandbox \(its user namespace differs from this machine's\)/,
      );
    } finally {
      inside.end();
    }
  });
});

describe.skipIf(process.platform !== 'linux')('namespaces an agent sandbox has of its own', () => {
  it('finds none foreign for this process, and each one a bubblewrap child unshares', async () => {
    expect(foreignNamespaces(process.pid)).toEqual([]);
    const { execFileSync } = await import('node:child_process');
    let bwrap = true;
    try {
      execFileSync('bwrap', ['--version'], { stdio: 'ignore' });
    } catch {
      bwrap = false;
    }
    if (!bwrap) {
      console.warn('bwrap is not installed: the sandboxed half of this test cannot run here');
      return;
    }
    const child = spawn(
      'bwrap',
      [
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--unshare-pid',
        '--unshare-ipc',
        '--unshare-uts',
        '--proc',
        '/proc',
        '--',
        'sleep',
        '30',
      ],
      { stdio: 'ignore' },
    );
    try {
      // bwrap forks the sandbox's first process; wait for it (a grandchild of this test, in the new namespaces).
      let inside: number | undefined;
      for (let i = 0; i < 100 && inside === undefined; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const kids = childrenOfAny(child.pid!);
        inside = kids.find((p) => foreignNamespaces(p).length > 0);
      }
      expect(inside).toBeDefined();
      expect(foreignNamespaces(inside!)).toEqual(expect.arrayContaining(['mnt', 'pid', 'ipc', 'uts']));
    } finally {
      child.kill('SIGKILL');
    }
  });
});

/** Every descendant of `pid`. */
function childrenOfAny(pid: number): number[] {
  const out: number[] = [];
  for (const c of childrenOf(pid)) out.push(c.pid, ...childrenOfAny(c.pid));
  return out;
}
