// An engine that stops answering (a frozen proxy in front of the test dockerd) must not hang a call, a kill or a probe.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { loadDockerEnv, removeContainers, type DockerTestEnv } from '../../../../../scripts/testEnv.js';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { DockerSpec } from './fields.js';
import type { Environment, ExecOptions, ProviderContext, TargetSnapshot } from '../provider.js';
import { dockerProvider } from './dockerProvider.js';
import { profileLabel, shortHash } from './containerConfig.js';

const env = loadDockerEnv();

/**
 * A unix-socket proxy to dockerd. freeze() stops forwarding both ways without closing anything (what a hung
 * engine or a blackholed link looks like); unfreeze() delivers what was held back.
 */
class FreezableProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly held: (() => void)[] = [];
  private frozen = false;
  /** Requests seen from the client side, by their first line ("POST /v1.x/exec/…/start HTTP/1.1"). */
  readonly requests: string[] = [];

  constructor(
    readonly path: string,
    upstream: string,
  ) {
    this.server = createServer((client) => {
      const engine = createConnection(upstream);
      this.sockets.add(client).add(engine);
      const forward = (from: Socket, to: Socket, sniff: boolean): void => {
        from.on('data', (b: Buffer) => {
          if (sniff)
            for (const m of b.toString('latin1').matchAll(/^(GET|POST|HEAD|PUT|DELETE) \S+/gm))
              this.requests.push(m[0]);
          if (this.frozen) this.held.push(() => to.write(b));
          else to.write(b);
        });
        from.on('close', () => to.destroy());
        from.on('error', () => to.destroy());
      };
      forward(client, engine, true);
      forward(engine, client, false);
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(this.path, resolve));
  }

  freeze(): void {
    this.frozen = true;
  }

  unfreeze(): void {
    this.frozen = false;
    for (const f of this.held.splice(0)) f();
  }

  close(): Promise<void> {
    this.held.length = 0;
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe.skipIf(!env)('docker backend on an engine that stops answering', () => {
  const te = env as DockerTestEnv;
  const docker = new Docker({ socketPath: te.socket, host: undefined, port: undefined, protocol: 'http' });
  let home: string;
  let ctx: ProviderContext;
  let proxy: FreezableProxy;
  const envs: Environment[] = [];

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'sb-docker-frozen-'));
    ctx = { home, resolveSpec: () => undefined };
  });

  afterEach(async () => {
    proxy.unfreeze();
    await proxy.close();
  });

  afterAll(async () => {
    // These Environments talked through a proxy that is gone; clean up on the engine directly.
    await removeContainers(docker, { label: [`${profileLabel}=${shortHash(home)}`] });
    rmSync(home, { recursive: true, force: true });
  });

  async function openBehindProxy(name: string): Promise<Environment> {
    proxy = new FreezableProxy(join(home, `${name}.sock`), te.socket);
    await proxy.listen();
    const spec = {
      backend: 'docker',
      docker_host: `unix://${proxy.path}`,
      docker_network: 'none',
      docker_image: te.image,
    } as DockerSpec;
    const snapshot: TargetSnapshot = {
      name,
      generation: 'g1',
      identity: `${name}#g1`,
      source: 'runtime',
      state: 'active',
      spec,
      flags: dockerProvider.flags,
      timeoutSec: 180,
    };
    const e = dockerProvider.createEnvironment(snapshot, ctx);
    envs.push(e);
    // Create the container while the proxy still forwards, so the frozen part is the command itself.
    expect((await e.exec('echo ready', opts())).output).toBe('ready\n');
    return e;
  }

  const opts = (o: Partial<ExecOptions> = {}): ExecOptions => ({
    cwd: '/',
    timeoutMs: 20_000,
    maxOutputChars: 100_000,
    ...o,
  });

  it(
    'a command whose engine freezes after it started settles ' + 'soon after its timeout, with one clear error',
    async () => {
      const e = await openBehindProxy('frozen-exec');
      const t0 = Date.now();
      const call = e.exec('sleep 40', opts({ timeoutMs: 2_000 })).then(
        (r) => ({ r, ms: Date.now() - t0 }),
        (err: unknown) => ({ err, ms: Date.now() - t0 }),
      );
      // Started: in an exec of its own or in a warm shell (no exec per call), so ask the engine directly.
      const [c] = await docker.listContainers({
        filters: { label: [`${profileLabel}=${shortHash(home)}`, 'switchboard.target=frozen-exec'] },
      });
      for (
        let i = 0;
        !(await docker.getContainer(c?.Id ?? '').top()).Processes?.some((p: string[]) =>
          p.join(' ').includes('sleep 40'),
        );
        i++
      ) {
        if (i > 200) throw new Error('the command never started');
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300));
      proxy.freeze();

      // A call that waited on the frozen engine would never settle (the test's timeout would end it).
      const settled = await call;
      expect('err' in settled).toBe(true);
      const err = (settled as { err: unknown }).err;
      expect(err).toBeInstanceOf(SwitchboardError);
      expect((err as SwitchboardError).code).toBe('target_unreachable');
      expect((err as SwitchboardError).message).toMatch(
        new RegExp(`^docker engine at unix://${proxy.path} stopped answering`),
      );
      expect((err as SwitchboardError).message).not.toContain('\n');
      // The kill exec was tried (and not answered) within a few seconds of the deadline.
      expect(settled.ms).toBeGreaterThanOrEqual(2_000);
    },
  );

  it('an engine that goes away under a warm shell: the next call is one clear error, as with no shell', async () => {
    const e = await openBehindProxy('gone-engine');
    await proxy.close();
    const err = await e.exec('echo x', opts()).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(SwitchboardError);
    expect((err as SwitchboardError).code).toBe('target_unreachable');
    expect((err as SwitchboardError).message).toContain(`unix://${proxy.path}`);
    expect((err as SwitchboardError).message).not.toContain('\n');
  });

  it('a timeout on a live engine still reads as before: exit 124 and "[timed out after 2s]"', async () => {
    const e = await openBehindProxy('live-timeout');
    const r = await e.exec('echo started; sleep 40', opts({ timeoutMs: 2_000 }));
    expect(r).toMatchObject({ exitCode: 124, timedOut: true, output: 'started\n\n[timed out after 2s]' });
  });

  it('pane kill(), background kill() and probe() return on a frozen engine', async () => {
    const e = await openBehindProxy('frozen-kill');
    const pane = await e.openShell({ cwd: '/', cols: 80, rows: 24 });
    const paneExit = new Promise<number | null>((resolve) => pane.onExit((code) => resolve(code)));
    const bg = await e.spawnBackground('sleep 40', { cwd: '/' });
    const bgExit = new Promise<number | null>((resolve) => bg.onExit((code) => resolve(code)));
    proxy.freeze();

    // Each returns at all: waiting on the frozen engine would never end (the test's timeout would).
    await bg.kill();
    await bgExit;
    pane.kill();
    await paneExit;

    const p = await e.probe();
    expect(p).toMatchObject({ ok: false, problem: expect.stringContaining(`unix://${proxy.path}`) });
  });
});
