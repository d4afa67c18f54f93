// The fault suite, against a served Core: sshd killed mid-call and mid-pane, the docker engine gone mid-call, a
// container removed under a pane. Each ends with the Core up, the next call working and no process left behind.
// Other faults have their own files: a slow WebSocket client (transport/connection.test.ts), registry garbage
// (core/registry/registryHold.test.ts), config garbage (cli/serveCall.test.ts), kill -9 of the Core
// (core/processes/orphans.test.ts), a frozen engine (core/backends/docker/frozenEngine.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrivateSshd, freePort } from '../../../scripts/privateSshd.js';
import { loadDockerEnv, loadSshEnv } from '../../../scripts/testEnv.js';
import { cliPath, ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';
import { connectCore } from '../transport/wsLink.js';
import type { CoreClient } from '../../shared/client.js';
import { sleepRunning, sleepSeconds, until } from '../../../scripts/sleepProbe.js';

const ssh = loadSshEnv();
const docker = loadDockerEnv();

/** A unix-socket proxy to dockerd that can be cut (the engine is gone: nothing listens) and restored. */
class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  constructor(
    readonly path: string,
    private readonly upstream: string,
  ) {}

  async listen(): Promise<void> {
    rmSync(this.path, { force: true });
    this.server = createServer((client) => {
      const engine = createConnection(this.upstream);
      this.sockets.add(client).add(engine);
      client.pipe(engine).pipe(client);
      for (const s of [client, engine]) {
        s.on('error', () => undefined);
        s.on('close', () => {
          client.destroy();
          engine.destroy();
          this.sockets.delete(s);
        });
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(this.path, resolve));
  }

  cut(): void {
    this.server?.close();
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    rmSync(this.path, { force: true });
  }
}

const uniqueSleep = sleepSeconds(7000, '75');
const running = sleepRunning;

describe.skipIf(!ssh || !docker)('faults against a served Core', () => {
  const home = tempHome('sb-faults-');
  const sockDir = mkdtempSync(join(tmpdir(), 'sb-faults-sock-'));
  let served: Served;
  let sshd: PrivateSshd;
  let proxy: CuttableProxy;
  let core: { client: CoreClient; close: () => void };

  const cli = (args: string[]) => runCli(home, args);
  const call = async (args: Record<string, unknown>): Promise<string> => {
    const r = await cli(['call', 'terminal', JSON.stringify(args)]);
    if (r.status !== 0) throw new Error(`terminal ${JSON.stringify(args)}: ${r.stderr}`);
    return r.stdout;
  };
  /** A foreground call left running in its own CLI process; resolves to its exit status and stderr. */
  const longCall = (target: string, seconds: string) => {
    const child = spawn(
      process.execPath,
      [
        cliPath,
        'call',
        'terminal',
        JSON.stringify({ command: `sleep ${seconds}`, timeout: 3600, execution_target: target }),
      ],
      {
        env: { ...process.env, SWITCHBOARD_HOME: home },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    return new Promise<{ status: number | null; stderr: string }>((resolve) =>
      child.on('close', (status) => resolve({ status, stderr })),
    );
  };
  /** Open a pane through the Core's API, as the window does; resolves once its shell printed something. */
  const openPane = async (target: string) => {
    let text = '';
    let exit: { code: number | null; reason?: string } | undefined;
    const info = await core.client.call('pane.open', { execution_target: target, cols: 80, rows: 24 });
    core.client.on('pane.data', (p) => {
      if (p.pane_id === info.pane_id) text += p.data;
    });
    core.client.on('pane.exit', (p) => {
      if (p.pane_id === info.pane_id) exit = { code: p.exit_code, ...(p.reason ? { reason: p.reason } : {}) };
    });
    const reconnects: string[] = [];
    core.client.on('pane.reconnect', (p) => {
      if (p.pane_id === info.pane_id) reconnects.push(p.state);
    });
    await until(() => text.length > 0, `the pane on ${target} printed its prompt`);
    return { info, exited: () => exit, reconnects, text: () => text };
  };
  const coreUp = async (): Promise<void> => {
    expect(served.child.exitCode).toBe(null);
    expect((await cli(['targets', 'list'])).status).toBe(0);
  };

  beforeAll(async () => {
    ensureBuilt();
    sshd = new PrivateSshd(ssh!.config, await freePort());
    await sshd.start();
    const keyPart = ssh!.knownHostsLine.split(' ').slice(1).join(' ');
    writeFileSync(join(home, 'known_hosts'), `[${ssh!.host}]:${sshd.port} ${keyPart}\n`, { mode: 0o600 });
    proxy = new CuttableProxy(join(sockDir, 'engine.sock'), docker!.socket);
    await proxy.listen();
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  targets:',
        `    flaky: { backend: ssh, ssh_host: ${ssh!.host}, ssh_port: ${sshd.port}, ssh_user: ${ssh!.user}, ` +
          // Unsandboxed: a sandbox's work ends with its connection; here what outlives sshd is looked at.
          `ssh_key: ${ssh!.key}, cwd: /tmp, sandbox: off }`,
        `    jail: { backend: docker, docker_image: "${docker!.image}", docker_host: "unix://${proxy.path}", ` +
          `docker_network: none, cwd: / }`,
        '',
      ].join('\n'),
    );
    served = await startServe(home);
    const info = JSON.parse(readFileSync(join(home, 'core.json'), 'utf8')) as { ws_url: string; token: string };
    core = await connectCore(info.ws_url, info.token, undefined, served.approver);
  });
  afterAll(async () => {
    core?.close();
    await served?.stop();
    sshd?.stop();
    proxy?.cut();
    rmSync(home, { recursive: true, force: true });
    rmSync(sockDir, { recursive: true, force: true });
  });

  it(
    'sshd killed mid-call and mid-pane: one clear error, the pane waits to reconnect, ' +
      'and once sshd is back the next call works, the pane is back and nothing is left running',
    async () => {
      expect(await call({ command: 'echo up', execution_target: 'flaky' })).toBe('up\n');
      const fg = uniqueSleep();
      const bg = uniqueSleep();
      const pane = await openPane('flaky');
      const cutCall = longCall('flaky', fg);
      await call({ command: `sleep ${bg}`, background: true, execution_target: 'flaky' });
      await until(() => running(fg) && running(bg), 'both sleeps started');

      sshd.stop();
      const failed = await cutCall;
      expect(failed.status).toBe(1);
      expect(failed.stderr.trim().split('\n')).toEqual([expect.stringContaining(`${ssh!.host}:${sshd.port}`)]);
      // An SSH pane stays in its place and counts down to its next try (issue 26); it has not ended.
      await until(() => pane.reconnects.includes('waiting'), 'the pane waits to reconnect');
      expect(pane.exited()).toBe(undefined);
      // The daemon is gone but the user's processes are not: nothing could reach them to end them.
      expect(running(fg)).toBe(true);
      await coreUp();

      await sshd.start();
      expect(await call({ command: 'echo back', execution_target: 'flaky' })).toBe('back\n');
      await until(() => pane.reconnects.includes('reconnected'), 'the pane reconnected by itself', 600);
      expect(pane.exited()).toBe(undefined);
      await until(() => !running(fg) && !running(bg), 'the cut-off sleeps were ended once the host answered');
      await coreUp();
    },
  );

  it(
    'the docker engine gone mid-call: one clear error, and once it is back the next call works and nothing is ' +
      'left running',
    async () => {
      expect(await call({ command: 'echo up', execution_target: 'jail' })).toBe('up\n');
      const fg = uniqueSleep();
      const cutCall = longCall('jail', fg);
      await until(() => running(fg), 'the sleep started in the container');

      proxy.cut();
      const failed = await cutCall;
      expect(failed.status).toBe(1);
      expect(failed.stderr.trim().split('\n')).toEqual([expect.stringContaining(`unix://${proxy.path}`)]);
      const down = await cli(['call', 'terminal', JSON.stringify({ command: 'echo again', execution_target: 'jail' })]);
      expect(down.status).toBe(1);
      expect(down.stderr.trim().split('\n')).toHaveLength(1);
      await coreUp();

      await proxy.listen();
      expect(await call({ command: 'echo back', execution_target: 'jail' })).toBe('back\n');
      await until(() => !running(fg), 'the cut-off sleep was ended once the engine answered');
      await coreUp();
    },
  );

  it('a container removed under a pane: the pane says so, and the next call gets a new container', async () => {
    const before = (await call({ command: 'hostname', execution_target: 'jail' })).trim();
    const pane = await openPane('jail');
    const rm = spawnSync('docker', ['-H', `unix://${docker!.socket}`, 'rm', '-f', before], { encoding: 'utf8' });
    expect(rm.status, rm.stderr).toBe(0);
    await until(() => pane.exited() !== undefined, 'the pane ended');
    await coreUp();
    // The first call after says the container is a new one, then runs in it.
    const after = (await call({ command: 'hostname', execution_target: 'jail' })).trim();
    const m = /^\[container was recreated\]\n([0-9a-f]{12})$/.exec(after);
    expect(m, after).not.toBeNull();
    expect(m![1]).not.toBe(before);
  });
});
