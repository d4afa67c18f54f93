// Managed containers stop with their Core (issue 31), against the private dockerd of scripts/env/docker.sh: a clean
// stop leaves them stopped with their files and the next use starts them; docker_on_stop: keep-running keeps one up;
// a Core killed with SIGKILL has its containers stopped by the next Core; doctor lists and cleans orphans.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { loadEngineEnvs, removeContainers } from '../../../../../scripts/testEnv.js';
import { ensureBuilt, runCli, startServe, tempHome } from '../../../../../scripts/cliHarness.js';
import { Core } from '../../core.js';
import { builtinProviders } from '../builtins.js';
import { profileLabel, profilePathLabel, shortHash, targetLabel } from './containerConfig.js';

for (const te of loadEngineEnvs())
  describe(`managed containers stop with their Core (real ${te.engine})`, () => {
    const docker = new Docker({ socketPath: te.socket, host: undefined, port: undefined, protocol: 'http' });
    const root = tempHome('sb-cstop-');
    /** The HOME of the Cores and CLIs this file starts: never the person's. */
    const userHome = join(root, 'user');
    const homes: string[] = [];

    const spec = (extra = ''): string =>
      `{ backend: docker, docker_image: "${te.image}", docker_host: "unix://${te.socket}", docker_network: ` +
      `none, cwd: /tmp${extra} }`;

    function profile(name: string, targets: Record<string, string>): string {
      const home = join(root, name);
      mkdirSync(home, { recursive: true });
      writeConfig(home, targets);
      homes.push(home);
      return home;
    }

    function writeConfig(home: string, targets: Record<string, string>): void {
      const lines = [
        'terminal:',
        '  targets:',
        ...Object.entries(targets).map(([n, s]) => `    ${n}: ${s}`),
        'approvals:',
        '  mode: off',
      ];
      writeFileSync(join(home, 'config.yaml'), `${lines.join('\n')}\n`);
    }

    async function containerOf(home: string, target: string): Promise<Docker.ContainerInfo | undefined> {
      const found = await docker.listContainers({
        all: true,
        filters: { label: [`${targetLabel}=${target}`, `${profileLabel}=${shortHash(home)}`] },
      });
      return found[0];
    }

    async function call(core: Core, target: string, command: string): Promise<string> {
      const r = await core.callTool('terminal', { command, execution_target: target }, 'test');
      return String(r.output);
    }

    beforeAll(() => {
      ensureBuilt();
      mkdirSync(userHome, { recursive: true });
    });

    afterAll(async () => {
      for (const home of homes) {
        await removeContainers(docker, { label: [`${profileLabel}=${shortHash(home)}`] });
      }
      // Nothing this file made is left running on the engine.
      const running = await docker.listContainers({ filters: { label: [targetLabel] } });
      expect(running.filter((c) => homes.some((h) => c.Labels[profileLabel] === shortHash(h)))).toEqual([]);
      rmSync(root, { recursive: true, force: true });
    });

    it(
      'a clean stop stops the container with its files; the next call starts it and sees them; ' +
        'keep-running stays up',
      async () => {
        const home = profile('clean', { box: spec(), warm: spec(', docker_on_stop: keep-running') });
        const first = await new Core({ home, providers: builtinProviders }).start();
        expect(await call(first, 'box', 'echo kept > /tmp/mark && echo ok')).toBe('ok\n');
        expect(await call(first, 'warm', 'echo ok')).toBe('ok\n');
        expect((await containerOf(home, 'box'))?.State).toBe('running');
        await first.close();

        expect((await containerOf(home, 'box'))?.State).toBe('exited');
        expect((await containerOf(home, 'warm'))?.State).toBe('running');
        // The new label names the profile itself, so doctor can tell when it is gone.
        expect((await containerOf(home, 'box'))?.Labels[profilePathLabel]).toBe(home);

        const second = await new Core({ home, providers: builtinProviders }).start();
        const out = await call(second, 'box', 'cat /tmp/mark');
        expect(out).toContain('[container was stopped; started it again]');
        expect(out).toContain('kept\n');
        await second.close();
        expect((await containerOf(home, 'box'))?.State).toBe('exited');
        await docker.getContainer((await containerOf(home, 'warm'))!.Id).stop({ t: 1 });
      },
    );

    it('after a Core is killed with SIGKILL, the next Core stops the containers it left running', async () => {
      const home = profile('killed', { box: spec() });
      const served = await startServe(home, { HOME: userHome });
      const r = await runCli(
        home,
        ['call', 'terminal', JSON.stringify({ command: 'echo ok', execution_target: 'box' })],
        { HOME: userHome },
      );
      expect(r.stdout, r.stderr).toBe('ok\n');
      served.child.kill('SIGKILL');
      await new Promise((res) => served.child.once('exit', res));
      rmSync(join(home, 'core.json'), { force: true });
      expect((await containerOf(home, 'box'))?.State).toBe('running');

      const next = await new Core({ home, providers: builtinProviders }).start();
      try {
        // A call made at once waits for that stop, so its container is not stopped under it.
        expect(await call(next, 'box', 'echo again')).toContain('again\n');
        expect((await containerOf(home, 'box'))?.State).toBe('running');
        const audit = readFileSync(join(home, 'audit.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(
          audit.some(
            (l) => l.kind === 'sweep' && l.execution_target === `containers on unix://${te.socket}` && l.count === 1,
          ),
        ).toBe(true);
      } finally {
        await next.close();
      }
      expect((await containerOf(home, 'box'))?.State).toBe('exited');
    });

    it(
      'doctor lists the containers of a deleted profile and of a removed target as orphans; ' +
        '--clean-orphans removes them',
      async () => {
        const gone = profile('gone', { old: spec() });
        const a = await new Core({ home: gone, providers: builtinProviders }).start();
        expect(await call(a, 'old', 'echo ok')).toBe('ok\n');
        await a.close();
        const goneName = (await containerOf(gone, 'old'))!.Names[0]!.slice(1);
        rmSync(gone, { recursive: true, force: true });

        const home = profile('living', { stay: spec(), dropped: spec() });
        const b = await new Core({ home, providers: builtinProviders }).start();
        expect(await call(b, 'stay', 'echo ok')).toBe('ok\n');
        expect(await call(b, 'dropped', 'echo ok')).toBe('ok\n');
        await b.close();
        // Removed while no Core ran: no cleanup took its container.
        writeConfig(home, { stay: spec() });
        const droppedName = (await containerOf(home, 'dropped'))!.Names[0]!.slice(1);
        const stayName = (await containerOf(home, 'stay'))!.Names[0]!.slice(1);

        const listed = await runCli(home, ['doctor', '--json'], { HOME: userHome });
        const doc = JSON.parse(listed.stdout) as {
          orphans: { name: string; profile: string; target: string; why: string; size_bytes?: number }[];
        };
        const names = doc.orphans.map((o) => o.name);
        expect(names).toContain(goneName);
        expect(names).toContain(droppedName);
        expect(names).not.toContain(stayName);
        const goneOrphan = doc.orphans.find((o) => o.name === goneName)!;
        expect(goneOrphan).toMatchObject({ profile: gone, target: 'old', why: `its profile ${gone} no longer exists` });
        expect(goneOrphan.size_bytes).toBeGreaterThanOrEqual(0);
        expect(doc.orphans.find((o) => o.name === droppedName)).toMatchObject({
          profile: home,
          target: 'dropped',
          why: 'target "dropped" no longer exists',
        });

        const text = await runCli(home, ['doctor'], { HOME: userHome });
        expect(text.stdout).toMatch(/orphan containers/);
        expect(text.stdout).toContain('switchboard doctor --clean-orphans');

        const cleaned = await runCli(home, ['doctor', '--clean-orphans'], { HOME: userHome });
        expect(cleaned.stdout).toMatch(/removing \d+ orphan container\(s\): .*/);
        expect(cleaned.stdout).toContain(`removed ${goneName}`);
        expect(cleaned.stdout).toContain(`removed ${droppedName}`);
        expect(await docker.listContainers({ all: true, filters: { name: [goneName] } })).toEqual([]);
        expect(await containerOf(home, 'dropped')).toBeUndefined();
        expect(await containerOf(home, 'stay')).toBeDefined();
      },
    );
  });
