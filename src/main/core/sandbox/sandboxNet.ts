// A sandbox's network: a network namespace of its own, where loopback is the sandbox's, abstract sockets are the
// sandbox's and the host's services are not there at all; what leaves goes through the Core's proxy (netProxy.ts),
// which judges each destination by the target's rules.
//
// One namespace per runtime identity, held by a helper (helper/helperMain.ts `net`) that bubblewrap starts with a
// user and a network namespace of their own: it listens inside on 127.0.0.1 (the HTTP and SOCKS proxy ports, and each
// allowed local port) and carries each connection over a unix socket to the proxy, which only the helper can reach.
// Every run of the identity is started inside that namespace (nsenter into the helper's user and network
// namespaces, then bwrap with a user namespace of its own below them), so calls, warm shells and background processes
// share one network as processes on one machine do. The Core keeps the namespaces open by descriptor: a run never
// joins another process's namespace by a pid that was reused.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { SwitchboardError } from '../../../shared/errors.js';
import { HelperReady, type HolderConfig } from '../../../shared/sandboxHelper.js';
import { builtFile } from '../platform/index.js';
import { bridgePorts, proxyEnvironment } from './netBridge.js';
import { NetProxy, type NetRules } from './netProxy.js';
import { seccompProgram, type SeccompArch } from './seccomp.js';

/** How long the holder may take to listen. */
const HOLD_START_MS = 20_000;
/** The longest a unix socket's path may be (sun_path, with its NUL), with room for the file's name. */
const SOCKET_DIR_MAX = 90;

/**
 * The holder's bwrap: the host read-only (it reads nothing; only the Core's socket matters), a private /tmp, and a
 * user, network and pid namespace of its own. The host's /dev is bound rather than a new one: bubblewrap, unprivileged,
 * makes a second user namespace to mount a new /dev, and a run entering the inner one could not join the network the
 * outer one owns. It keeps CAP_NET_BIND_SERVICE in its own namespace (a local port under 1024); nothing of the host's.
 * No --disable-userns: each run makes its own user namespace below this one.
 */
export function holderArgs(
  argv: readonly string[],
  fds: { seccomp: number; info: number },
  socketDir: string,
): string[] {
  return [
    ...['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc'],
    // The proxy's socket may be under the host's /tmp (a profile whose path is too long for a socket's): bound back.
    ...['--ro-bind', '/proc/sys', '/proc/sys', '--tmpfs', '/tmp', '--ro-bind', socketDir, socketDir],
    ...['--unshare-user', '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts'],
    ...['--cap-drop', 'ALL', '--cap-add', 'CAP_NET_BIND_SERVICE', '--die-with-parent', '--new-session'],
    ...['--seccomp', String(fds.seccomp), '--info-fd', String(fds.info), '--', ...argv],
  ];
}

interface Holder {
  child: ChildProcess;
  ready: Promise<void>;
  /** The namespaces, open in the Core (descriptors), once the holder is up. */
  userFd?: number;
  netFd?: number;
  ports: { httpPort: number; socksPort: number };
}

/** The network of one runtime identity's sandbox. */
export class SandboxNet {
  private proxy: NetProxy | undefined;
  private holder: Holder | undefined;
  private socketDir: string | undefined;
  private readonly restarted = new Set<() => void>();

  constructor(
    private readonly arch: SeccompArch,
    private rules: NetRules,
    /** Where the proxy's socket goes when its path is short enough (the identity's folder, the Core's). */
    private readonly preferredDir: string,
    /** What the holder is started through: the sandbox's limits (sandboxLimits.ts). */
    private readonly limitsPrefix: () => string[] = () => [],
  ) {}

  /** Called when the holder had to be started again: runs started before are in a namespace nobody carries out. */
  onRestart(listener: () => void): void {
    this.restarted.add(listener);
  }

  /** The rules of a changed target (the proxy judges each new connection by them). */
  setRules(rules: NetRules): void {
    this.rules = rules;
    this.proxy?.setRules(rules);
  }

  /** The latest refusals, for the note a failed call gets. */
  recentRefusals(): string[] {
    return this.proxy?.recentRefusals() ?? [];
  }

  /** Start the proxy and the holder if they are not up. Every run of a networked sandbox waits for this first. */
  async ready(): Promise<void> {
    if (!this.holder) {
      const first = this.proxy === undefined;
      this.proxy ??= await NetProxy.listen(join(this.dir(), 'proxy.sock'), this.rules, {
        log: (line) => process.stderr.write(`switchboard: sandbox network: ${line}\n`),
      });
      this.holder ??= this.startHolder();
      if (!first) for (const l of this.restarted) l();
    }
    await this.holder.ready;
  }

  /** The command a run is started with so that it enters the namespaces (undefined until ready). */
  joinPrefix(): string[] | undefined {
    const h = this.holder;
    if (h?.userFd === undefined || h.netFd === undefined) return undefined;
    const at = (fd: number) => `/proc/${process.pid}/fd/${fd}`;
    return ['nsenter', `--user=${at(h.userFd)}`, `--net=${at(h.netFd)}`, '--preserve-credentials', '--'];
  }

  /** What a run's programs are told: the proxy ports (HTTP_PROXY and the rest). */
  env(): Record<string, string> {
    const { httpPort, socksPort } = this.holder?.ports ?? bridgePorts(this.rules.allowLocalPorts);
    return proxyEnvironment(httpPort, socksPort);
  }

  private dir(): string {
    if (this.socketDir) return this.socketDir;
    if (this.preferredDir.length <= SOCKET_DIR_MAX) {
      mkdirSync(this.preferredDir, { recursive: true, mode: 0o700 });
      this.socketDir = this.preferredDir;
    } else this.socketDir = mkdtempSync(join(tmpdir(), 'sb-net-'));
    return this.socketDir;
  }

  private startHolder(): Holder {
    const ports = bridgePorts(this.rules.allowLocalPorts);
    const config: HolderConfig = {
      socket: join(this.dir(), 'proxy.sock'),
      http: ports.httpPort,
      socks: ports.socksPort,
      local: [...this.rules.allowLocalPorts],
    };
    const argv = [
      process.execPath,
      builtFile('sandbox-helper/helper.cjs', 'the sandbox helper'),
      'net',
      JSON.stringify(config),
    ];
    // Descriptors: stdin, stdout, stderr, the IPC channel, the seccomp filter, bwrap's info (the namespace's pid).
    const [file, ...args] = [...this.limitsPrefix(), 'bwrap', ...holderArgs(argv, { seccomp: 4, info: 5 }, this.dir())];
    const child = spawn(file!, args, {
      cwd: '/',
      detached: true,
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc', 'pipe', 'pipe'],
      serialization: 'advanced',
    });
    const filter = child.stdio[4] as Writable | null;
    filter?.on('error', () => undefined); // a bwrap that did not start reads nothing: its own error says why
    filter?.end(seccompProgram(this.arch));
    const holder: Holder = { child, ports, ready: Promise.resolve() };
    let info = '';
    (child.stdio as unknown as Array<Readable | null>)[5]?.setEncoding('utf8').on('data', (t: string) => (info += t));
    let stderr = '';
    // What the holder says (a connection it could not carry) goes to the Core's log, and the last of it into why it
    // stopped.
    child.stderr?.setEncoding('utf8').on('data', (t: string) => {
      stderr = (stderr + t).slice(-2000);
      for (const line of t.split('\n')) if (line) process.stderr.write(`switchboard: sandbox network: ${line}\n`);
    });
    holder.ready = new Promise<void>((resolve, reject) => {
      const fail = (why: string): void => {
        clearTimeout(timer);
        reject(new SwitchboardError('internal', `the sandbox's network did not start: ${why}`));
      };
      const timer = setTimeout(() => {
        fail('its helper did not answer');
        child.kill('SIGKILL');
      }, HOLD_START_MS);
      child.on('message', (m: unknown) => {
        if (!HelperReady.safeParse(m).success) return;
        const pid = Number(/"child-pid":\s*(\d+)/.exec(info)?.[1]);
        try {
          if (!pid) throw new Error('bwrap did not say its pid');
          holder.userFd = openSync(`/proc/${pid}/ns/user`, 'r');
          holder.netFd = openSync(`/proc/${pid}/ns/net`, 'r');
        } catch (err) {
          fail(String(err));
          child.kill('SIGKILL');
          return;
        }
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code, signal) => {
        if (this.holder === holder) this.holder = undefined;
        for (const fd of [holder.userFd, holder.netFd]) if (fd !== undefined) closeSync(fd);
        holder.userFd = holder.netFd = undefined;
        fail(stderr.trim().split('\n').pop() || `its helper ended (${signal ?? `exit ${code}`})`);
      });
      child.once('error', (err) => fail(err.message));
    });
    // Nobody may be left waiting on a holder that failed: the next ready() starts another.
    holder.ready.catch(() => {
      if (this.holder === holder) this.holder = undefined;
    });
    return holder;
  }

  /** End the holder and the proxy (the environment's cleanup). */
  async close(): Promise<void> {
    const h = this.holder;
    this.holder = undefined;
    if (h && h.child.exitCode === null && h.child.signalCode === null) {
      const exited = new Promise<void>((r) => h.child.once('exit', () => r()));
      h.child.kill('SIGKILL');
      await exited;
    }
    await this.proxy?.close();
    this.proxy = undefined;
    if (this.socketDir && this.socketDir !== this.preferredDir)
      rmSync(this.socketDir, { recursive: true, force: true });
    this.socketDir = undefined;
  }
}
