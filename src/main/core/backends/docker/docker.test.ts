// Integration tests of the Docker backend against the private dockerd that scripts/env/docker.sh starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { loadEngineEnvs } from '../../../../../scripts/testEnv.js';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { DockerSpec } from './fields.js';
import type { Environment, ExecOptions, ProviderContext, ShellChannel, TargetSnapshot } from '../provider.js';
import { dockerProvider } from './dockerProvider.js';
import { keepAliveScript, profileLabel, shortHash } from './containerConfig.js';

for (const te of loadEngineEnvs())
  describe(`docker backend (real ${te.engine})`, () => {
    const docker = new Docker({ socketPath: te.socket, host: undefined, port: undefined, protocol: 'http' });
    let home: string;
    let ctx: ProviderContext;
    const envs: Environment[] = [];
    const run = randomBytes(3).toString('hex');

    beforeAll(() => {
      home = mkdtempSync(join(tmpdir(), 'sb-docker-home-'));
      process.env.SWITCHBOARD_HOME = home;
      ctx = { home, resolveSpec: () => undefined };
    });

    afterAll(async () => {
      await Promise.all(envs.map((e) => e.cleanup('shutdown').catch(() => undefined)));
      // Everything this run created carries its profile label (or the attach- prefix).
      const ours = await docker.listContainers({
        all: true,
        filters: { label: [`${profileLabel}=${shortHash(home)}`] },
      });
      const attached = await docker.listContainers({ all: true, filters: { name: [`sb-attach-${run}`] } });
      await Promise.all(
        [...ours, ...attached].map((c) =>
          docker
            .getContainer(c.Id)
            .remove({ force: true })
            .catch(() => undefined),
        ),
      );
      rmSync(home, { recursive: true, force: true });
    });

    function open(name: string, generation: string, spec: Partial<DockerSpec>): Environment {
      const full = { backend: 'docker', docker_host: te.socket, docker_network: 'none', ...spec } as DockerSpec;
      if (!full.docker_container && !full.docker_image) full.docker_image = te.image;
      const snapshot: TargetSnapshot = {
        name,
        generation,
        identity: `${name}#${generation}`,
        source: 'runtime',
        state: 'active',
        spec: full,
        flags: dockerProvider.flags,
        timeoutSec: 180,
      };
      const e = dockerProvider.createEnvironment(snapshot, ctx);
      envs.push(e);
      return e;
    }

    const opts = (o: Partial<ExecOptions> = {}): ExecOptions => ({
      cwd: '/',
      timeoutMs: 20_000,
      maxOutputChars: 100_000,
      ...o,
    });

    async function containersOf(name: string): Promise<Docker.ContainerInfo[]> {
      return docker.listContainers({
        all: true,
        filters: { label: [`switchboard.target=${name}`, `${profileLabel}=${shortHash(home)}`] },
      });
    }

    function collectShell(ch: ShellChannel): {
      text: () => string;
      exited: Promise<{ code: number | null; reason?: string }>;
    } {
      let buf = '';
      ch.onData((d) => {
        buf += d;
        // Answer cursor-position queries as xterm.js would; busybox ash asks before each prompt.
        if (d.includes('\x1b[6n')) ch.write('\x1b[1;1R');
      });
      const exited = new Promise<{ code: number | null; reason?: string }>((resolve) =>
        ch.onExit((code, reason) => resolve({ code, reason })),
      );
      return { text: () => buf, exited };
    }

    /** Waits for a condition; `seen` says what was there instead when it never came (a shell's output so far). */
    async function until(cond: () => boolean, ms = 30_000, seen?: () => string): Promise<void> {
      const end = Date.now() + ms;
      while (!cond()) {
        if (Date.now() > end)
          throw new Error(`condition not met in time${seen ? `; seen: ${JSON.stringify(seen().slice(-600))}` : ''}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    it('declares honest flags', () => {
      expect(dockerProvider.flags).toEqual({
        is_remote: false,
        is_container: true,
        skip_container_guards: true,
        supports_pty: true,
        supports_stdin: true,
        supports_streams: true,
        strip_env_keys: [],
        cache_path_base: '~/.cache/switchboard',
        session_isolated_when_nonpersistent: false,
        default_cwd: '~',
      });
    });

    it('creates one labelled managed container per identity and reuses it', async () => {
      const a = open('box', 'g1', {});
      const r = await a.exec('echo hello; hostname', opts());
      expect(r.exitCode).toBe(0);
      const [first, host] = r.output.trim().split('\n');
      expect(first).toBe('hello');
      const list = await containersOf('box');
      expect(list).toHaveLength(1);
      expect(list[0]?.Labels).toMatchObject({ 'switchboard.target': 'box', 'switchboard.generation': 'g1' });

      // A second Environment of the same identity (e.g. after a restart) finds the same container by label.
      const b = open('box', 'g1', {});
      expect((await b.exec('hostname', opts())).output.trim()).toBe(host);
      expect(await containersOf('box')).toHaveLength(1);

      // Another generation is another runtime identity, so another container.
      const c = open('box', 'g2', {});
      expect((await c.exec('hostname', opts())).output.trim()).not.toBe(host);
      expect(await containersOf('box')).toHaveLength(2);
    });

    it('runs commands: exit codes, cwd after cd, exported vars, stdin, stderr merged', async () => {
      const e = open('cmds', 'g1', {});
      const r = await e.exec('mkdir -p /tmp/w/sub && cd /tmp/w/sub && echo out && echo err >&2; exit 3', opts());
      expect(r).toMatchObject({
        exitCode: 3,
        cwd: '/tmp/w/sub',
        output: 'out\nerr\n',
        timedOut: false,
        truncated: false,
      });
      expect((await e.exec('pwd', opts({ cwd: '/tmp/w/sub' }))).output).toBe('/tmp/w/sub\n');
      // A deleted cwd falls back to its nearest existing parent, and says so.
      expect((await e.exec('pwd', opts({ cwd: '/tmp/w/gone/deeper' }))).output).toBe(
        '[the cwd /tmp/w/gone/deeper no longer exists; running in /tmp/w]\n/tmp/w\n',
      );
      await e.exec('export SB_KEPT="a b"', opts());
      expect((await e.exec('echo "$SB_KEPT"', opts())).output).toBe('a b\n');
      expect((await e.exec('cat; echo', opts({ stdin: 'from stdin' }))).output).toBe('from stdin\n');
      expect((await e.exec('echo "$PER_CALL"', opts({ env: { PER_CALL: 'yes' } }))).output).toBe('yes\n');
      expect((await e.exec('printf "ünïcødé ✓"', opts())).output).toBe('ünïcødé ✓');
    });

    it('home() is the user home of the image (busybox: /root)', async () => {
      expect(await open('homes', 'g1', {}).home()).toBe('/root');
    });

    it('timeout kills the whole process group inside the container', async () => {
      const e = open('slow', 'g1', {});
      // The first call also loads the Engine client and starts the container's shell: not what the 1 s is for.
      await e.exec('true', opts());
      const r = await e.exec('echo started; sleep 41 & sleep 42; echo never', opts({ timeoutMs: 1_000 }));
      expect(r.exitCode).toBe(124);
      expect(r.timedOut).toBe(true);
      expect(r.output).toBe('started\n\n[timed out after 1s]');
      const ps = await e.exec('ps -o args | grep -c "^sleep 4[12]" || true', opts());
      expect(ps.output.trim()).toBe('0');
    });

    it('abort signal stops a command', async () => {
      const e = open('slow', 'g1', {});
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 300);
      const r = await e.exec('sleep 30', opts({ signal: ac.signal }));
      expect(r.exitCode).not.toBe(0);
    });

    it('caps output, keeping head and tail', async () => {
      const e = open('cmds', 'g1', {});
      const r = await e.exec('seq 1 100000', opts({ maxOutputChars: 1_000 }));
      expect(r.truncated).toBe(true);
      expect(r.exitCode).toBe(0);
      expect(r.output.startsWith('1\n2\n3\n')).toBe(true);
      expect(r.output.trimEnd().endsWith('99999\n100000')).toBe(true);
      expect(r.output).toMatch(/\[… \d+ chars of output cut …\]/);
      expect(r.output.length).toBeLessThan(1_200);
    });

    it('opens a pane: tty I/O, resize, exit', async () => {
      const e = open('pane', 'g1', {});
      await e.exec('mkdir -p /tmp/pane', opts());
      const ch = await e.openShell({ cwd: '/tmp/pane', cols: 80, rows: 24 });
      const out = collectShell(ch);
      await until(() => out.text().includes('# '));
      // Typed again if it was swallowed: busybox ash reads a cursor-position answer before each prompt, and a line
      // that arrives while it waits for that answer is lost (a person types later; a test does not).
      const say = async (line: string, cond: () => boolean): Promise<void> => {
        for (let i = 0; i < 6 && !cond(); i++) {
          ch.write(line);
          await until(cond, 5_000).catch(() => undefined);
        }
        await until(cond, 0, out.text);
      };
      await say(
        'stty size; pwd; tty\n',
        () => out.text().includes('24 80') && out.text().includes('/tmp/pane') && out.text().includes('/dev/pts'),
      );
      ch.resize(100, 30);
      await new Promise((r) => setTimeout(r, 200));
      await say('stty size\n', () => out.text().includes('30 100'));
      ch.write('exit 7\n');
      expect((await out.exited).code).toBe(7);
    });

    it('pane kill() ends the shell', async () => {
      const e = open('pane', 'g1', {});
      const ch = await e.openShell({ cwd: '/', cols: 80, rows: 24 });
      const out = collectShell(ch);
      ch.write('echo ready\n');
      await until(() => out.text().includes('ready'));
      ch.kill();
      // HUP ends an interactive shell (it ignores TERM): 128 + 1, not the 128 + 9 of a KILL after the grace period.
      expect((await out.exited).code).toBe(129);
    });

    it('two Environments racing on a new identity share one container', async () => {
      const a = open('race', 'g1', {});
      const b = open('race', 'g1', {});
      const [ra, rb] = await Promise.all([a.exec('hostname', opts()), b.exec('hostname', opts())]);
      expect(ra.output).toBe(rb.output);
      expect(await containersOf('race')).toHaveLength(1);
    });

    it('cleanup("idle") ends panes and background processes but keeps the container', async () => {
      const e = open('idler', 'g1', {});
      const h = await e.spawnBackground('sleep 71', { cwd: '/' });
      const bgExit = new Promise((r) => h.onExit(r));
      const ch = await e.openShell({ cwd: '/', cols: 80, rows: 24 });
      const pane = collectShell(ch);
      await e.cleanup('idle');
      await Promise.all([bgExit, pane.exited]);
      const ps = await e.exec('ps -o args | grep -c "^sleep 71" || true', opts());
      expect(ps.output.trim()).toBe('0');
      expect(await containersOf('idler')).toHaveLength(1);
    });

    it('background processes: output, stdin, kill of the whole group', async () => {
      const e = open('bg', 'g1', {});
      const h = await e.spawnBackground('echo up; read line; echo "got $line"; sleep 51 & sleep 52', { cwd: '/tmp' });
      let buf = '';
      h.onData((d) => (buf += d));
      const exited = new Promise<number | null>((resolve) => h.onExit((code) => resolve(code)));
      await until(() => buf.includes('up'));
      h.write('ping\n');
      await until(() => buf.includes('got ping'));
      await h.kill();
      await exited;
      const ps = await e.exec('ps -o args | grep -c "^sleep 5[12]" || true', opts());
      expect(ps.output.trim()).toBe('0');
      expect(() => h.write('late\n')).toThrow(SwitchboardError);
    });

    it('file ops through the archive API', async () => {
      const e = open('files', 'g1', {});
      await e.writeFile('/tmp/f/deep/er/a.txt', Buffer.from('hello\n'));
      expect((await e.readFile('/tmp/f/deep/er/a.txt', 1_000)).toString()).toBe('hello\n');
      expect(await e.stat('/tmp/f/deep/er/a.txt')).toEqual({ type: 'file', size: 6 });
      expect((await e.stat('/tmp/f/deep')).type).toBe('directory');
      expect(await e.stat('/tmp/f/nope')).toEqual({ type: 'missing', size: 0 });
      // Writing under /tmp must not reset /tmp's own mode (sticky, world-writable).
      expect((await e.exec('stat -c %a /tmp', opts())).output.trim()).toBe('1777');
      expect((await e.exec('cat /tmp/f/deep/er/a.txt; ls -ld /tmp/f/deep | cut -c1-10', opts())).output).toBe(
        'hello\ndrwxr-xr-x\n',
      );

      // Binary round trip, and overwriting keeps an existing file's mode.
      const bin = randomBytes(200_000);
      await e.writeFile('/tmp/f/bin', bin);
      expect((await e.readFile('/tmp/f/bin', 1_000_000)).equals(bin)).toBe(true);
      await e.exec('printf "#!/bin/sh\\necho v1\\n" > /tmp/f/run.sh && chmod 750 /tmp/f/run.sh', opts());
      await e.writeFile('/tmp/f/run.sh', Buffer.from('#!/bin/sh\necho v2\n'));
      expect((await e.exec('/tmp/f/run.sh; stat -c %a /tmp/f/run.sh', opts())).output).toBe('v2\n750\n');

      // Symlinks are followed for read and write.
      await e.exec('ln -s /tmp/f/deep/er/a.txt /tmp/f/link', opts());
      expect((await e.readFile('/tmp/f/link', 100)).toString()).toBe('hello\n');
      await e.writeFile('/tmp/f/link', Buffer.from('via link'));
      expect((await e.exec('cat /tmp/f/deep/er/a.txt; [ -L /tmp/f/link ] && echo still-a-link', opts())).output).toBe(
        'via linkstill-a-link\n',
      );

      await expect(e.readFile('/tmp/f/bin', 1_000)).rejects.toMatchObject({ code: 'too_large' });
      await expect(e.readFile('/tmp/f/missing', 1_000)).rejects.toMatchObject({ code: 'bad_request' });
      await expect(e.readFile('/tmp/f', 1_000)).rejects.toMatchObject({ code: 'bad_request' });
      await expect(e.writeFile('/tmp/f', Buffer.from('x'))).rejects.toMatchObject({ code: 'bad_request' });
      await expect(e.writeFile('/tmp/f/bin/under-a-file', Buffer.from('x'))).rejects.toMatchObject({
        code: 'bad_request',
      });
      await expect(e.readFile('relative.txt', 10)).rejects.toMatchObject({ code: 'bad_request' });
    });

    it('locks the managed container down', async () => {
      const e = open('locked', 'g1', {
        docker_memory: '256m',
        docker_cpus: 1,
        docker_env: { FROM_SPEC: 'spec-value' },
      });
      expect((await e.exec('echo "$FROM_SPEC"', opts())).output).toBe('spec-value\n');
      const [c] = await containersOf('locked');
      const info = await docker.getContainer(c?.Id ?? '').inspect();
      // Docker echoes the drop and the adds as asked; Podman shows them as a difference from its own default set.
      // What the process holds (CapEff below) is the same on both.
      if (te.engine === 'docker') {
        expect(info.HostConfig.CapDrop).toEqual(['ALL']);
        expect(info.HostConfig.CapAdd).toEqual(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID']);
      }
      expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
      expect(info.HostConfig.Binds ?? []).toEqual([]);
      expect(info.Mounts).toEqual([]);
      expect(info.HostConfig.NetworkMode).toBe('none');
      expect(info.HostConfig.PidsLimit).toBe(256);
      expect(info.HostConfig.Memory).toBe(256 * 1024 * 1024);
      expect(info.HostConfig.NanoCpus).toBe(1e9);
      expect(info.HostConfig.Privileged).toBe(false);
      // Inside: no NET_ADMIN/SYS_ADMIN; NoNewPrivs set.
      const status = (await e.exec('grep -E "^(CapEff|NoNewPrivs)" /proc/self/status', opts())).output;
      expect(status).toMatch(/NoNewPrivs:\s+1/);
      expect(status).toMatch(/CapEff:\s+00000000000000cb/);
      expect((await e.exec('ls /sys/class/net', opts())).output.trim()).toBe('lo');
    });

    it('a managed container stopped mid-session is started again; a pane sees it stop', async () => {
      const e = open('stopper', 'g1', {});
      await e.exec('true', opts());
      const ch = await e.openShell({ cwd: '/', cols: 80, rows: 24 });
      const pane = collectShell(ch);
      const [c] = await containersOf('stopper');
      await docker.getContainer(c?.Id ?? '').stop({ t: 1 });
      const exit = await pane.exited;
      expect(exit.reason).toMatch(/stopped|removed/);
      const r = await e.exec('echo back', opts());
      expect(r.exitCode).toBe(0);
      expect(r.output).toBe('[container was stopped; started it again]\nback\n');
      expect((await e.exec('echo quiet', opts())).output).toBe('quiet\n');
    });

    it('a managed container removed behind our back is recreated, and the next call says so', async () => {
      const e = open('phoenix', 'g1', {});
      const before = (await e.exec('hostname', opts())).output.trim();
      const [c] = await containersOf('phoenix');
      await docker.getContainer(c?.Id ?? '').remove({ force: true });
      const r = await e.exec('hostname', opts());
      expect(r.exitCode).toBe(0);
      expect(r.output.split('\n')[0]).toBe('[container was recreated]');
      expect(r.output.split('\n')[1]).not.toBe(before);
      expect(await containersOf('phoenix')).toHaveLength(1);

      // The pane says so too.
      const [c2] = await containersOf('phoenix');
      await docker.getContainer(c2?.Id ?? '').remove({ force: true });
      const ch = await e.openShell({ cwd: '/', cols: 80, rows: 24 });
      const pane = collectShell(ch);
      await until(() => pane.text().includes('[container was recreated]'));
      ch.write('exit\n');
      await pane.exited;
    });

    it('attaches to an existing container: started when stopped, never removed', async () => {
      const name = `sb-attach-${run}`;
      const created = await docker.createContainer({
        name,
        Image: te.image,
        Entrypoint: ['/bin/sh', '-c'],
        Cmd: [keepAliveScript],
        HostConfig: { NetworkMode: 'none' },
      });
      await created.start();
      const e = open('attached', 'g1', { docker_container: name });
      const r = await e.exec('echo attached; pwd', opts({ cwd: '/tmp' }));
      expect(r.output).toBe('attached\n/tmp\n');
      await created.stop({ t: 1 });
      const r2 = await e.exec('echo again', opts());
      expect(r2.output).toBe('[container was stopped; started it again]\nagain\n');
      await e.cleanup('removed');
      const info = await created.inspect();
      expect(info.State.Running).toBe(true);
      // A missing attached container is one clear error.
      const ghost = open('ghost', 'g1', { docker_container: `sb-attach-${run}-missing` });
      await expect(ghost.exec('true', opts())).rejects.toMatchObject({
        code: 'target_unreachable',
        message: expect.stringContaining(`sb-attach-${run}-missing`),
      });
    });

    it('cleanup("removed") removes the managed container unless docker_keep', async () => {
      const gone = open('temp', 'g1', {});
      await gone.exec('true', opts());
      expect(await containersOf('temp')).toHaveLength(1);
      await gone.cleanup('removed');
      expect(await containersOf('temp')).toHaveLength(0);

      const kept = open('kept', 'g1', { docker_keep: true });
      await kept.exec('true', opts());
      await kept.cleanup('removed');
      expect(await containersOf('kept')).toHaveLength(1);

      const idle = open('idle', 'g1', {});
      await idle.exec('true', opts());
      await idle.cleanup('idle');
      expect(await containersOf('idle')).toHaveLength(1);
    });

    it('an unreachable engine is one clear error naming the endpoint', async () => {
      const sock = join(home, 'no-such-dir', 'docker.sock');
      const e = open('down', 'g1', { docker_host: sock });
      const err = await e.exec('true', opts()).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(SwitchboardError);
      expect((err as SwitchboardError).code).toBe('target_unreachable');
      expect((err as SwitchboardError).message).toBe(
        `docker engine at unix://${sock} is unreachable (no socket there)`,
      );
      expect((err as SwitchboardError).message).not.toContain('\n');
      const p = await e.probe();
      expect(p).toEqual({ ok: false, problem: (err as SwitchboardError).message });
    });

    it('probe is fast and says what it found', async () => {
      const e = open('probe', 'g1', {});
      expect(await e.probe()).toMatchObject({ ok: true, detail: expect.stringContaining('created on first use') });
      await e.exec('true', opts());
      expect(await e.probe()).toMatchObject({ ok: true, detail: expect.stringContaining('running') });
    });

    it.skipIf(!te.pythonImage)('runs python3 in the python test image', async () => {
      const e = open('py', 'g1', { docker_image: te.pythonImage ?? '' });
      const r = await e.exec('python3 -c "print(6*7)"', opts());
      expect(r).toMatchObject({ exitCode: 0, output: '42\n' });
    });
  });
