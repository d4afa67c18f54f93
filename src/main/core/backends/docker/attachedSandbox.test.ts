// What holds agent work in on Docker targets, through a real Core and the private engines of scripts/env: a managed
// container says what Switchboard made; attached ones say what their own settings give, and a privileged one, one with
// the engine's socket inside or one on the host's network is unsandboxed, in TargetInfo, on "Approve command" and in
// doctor's warnings.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Docker from 'dockerode';
import { loadEngineEnvs, removeContainers } from '../../../../../scripts/testEnv.js';
import type { DoctorReport } from '../../../../shared/api.js';
import type { TargetInfo } from '../../../../shared/targets.js';
import { builtinProviders } from '../builtins.js';
import { makeTestCore, type TestCore } from '../../tools/testCore.js';
import { keepAliveScript } from './containerConfig.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const engines = loadEngineEnvs();
if (engines.length === 0) console.log('attachedSandbox.test: no test engine (bash scripts/test-env.sh up): skipped');

for (const te of engines)
  describe(`where work runs on Docker targets (real ${te.engine})`, () => {
    const docker = new Docker({ socketPath: te.socket, host: undefined, port: undefined, protocol: 'http' });
    const run = randomBytes(3).toString('hex');
    const name = (what: string): string => `sb-confined-${run}-${what}`;
    const scratch = mkdtempSync(join(tmpdir(), 'sb-confined-'));
    /** A plain file standing in for an engine's socket: a path named like it is what is judged. */
    const fakeSocket = join(scratch, 'not-a-socket');
    writeFileSync(fakeSocket, '');
    let t: TestCore;
    /** Why a container could not be made on this engine (host networking may be refused), by its target name. */
    const refused = new Map<string, string>();
    /**
     * Why one was made but cannot start (an engine that itself runs without every capability cannot start a privileged
     * one): inspected all the same (doctor and the health checks never start one), so doctor still warns of it, but
     * no command runs there.
     */
    const unstarted = new Map<string, string>();

    const attached: Record<string, Docker.HostConfig> = {
      plain: { NetworkMode: 'none' },
      priv: { NetworkMode: 'none', Privileged: true },
      sock: { NetworkMode: 'none', Binds: [`${fakeSocket}:/var/run/docker.sock`] },
      hostnet: { NetworkMode: 'host' },
    };

    const why = (err: unknown): string => (err instanceof Error ? err.message : String(err));

    async function makeContainer(target: string, hostConfig: Docker.HostConfig): Promise<void> {
      let c: Docker.Container;
      try {
        c = await docker.createContainer({
          name: name(target),
          Image: te.image,
          Entrypoint: ['/bin/sh', '-c'],
          Cmd: [keepAliveScript],
          HostConfig: hostConfig,
        });
      } catch (err) {
        refused.set(target, why(err));
        console.log(`attachedSandbox.test (${te.engine}): ${target} not tested: the engine refused it: ${why(err)}`);
        return;
      }
      await c.start().catch((err: unknown) => {
        unstarted.set(target, why(err));
        console.log(
          `attachedSandbox.test (${te.engine}): ${target} made but not started (${why(err)}): ` +
            'only its inspection is tested',
        );
      });
    }

    beforeAll(async () => {
      for (const [target, hostConfig] of Object.entries(attached)) await makeContainer(target, hostConfig);
      const host = `docker_host: "unix://${te.socket}"`;
      const specs: Record<string, string> = {
        box: `{ backend: docker, docker_image: "${te.image}", ${host}, docker_network: none }`,
      };
      for (const target of Object.keys(attached))
        specs[target] = `{ backend: docker, docker_container: "${name(target)}", ${host} }`;
      t = await makeTestCore(['box', ...Object.keys(attached)], {
        specs,
        providers: builtinProviders,
        extra: 'approvals:\n  mode: ask\n  timeout: 600\n',
      });
    });

    afterAll(async () => {
      await t?.close();
      await removeContainers(docker, { name: [`sb-confined-${run}`] });
      rmSync(scratch, { recursive: true, force: true });
    });

    const info = (target: string): TargetInfo | undefined => t.core.listTargets().find((x) => x.name === target);
    const tested = (target: string): boolean => !refused.has(target);
    const started = (target: string): boolean => tested(target) && !unstarted.has(target);
    /** Why each unsandboxed one is, as TargetInfo says it. */
    const reasons: Record<string, string> = {
      priv: 'it is privileged (--privileged)',
      sock: `a container engine's socket is inside (${fakeSocket} at /var/run/docker.sock)`,
      hostnet: "it shares the host's network (--network host)",
    };

    it('a managed container says what Switchboard made, before anything ran', () => {
      expect(info('box')?.sandbox).toEqual({
        state: 'sandboxed',
        kind: 'container',
        network: false,
        confinement:
          'a container Switchboard made: no capabilities but CHOWN, DAC_OVERRIDE, FOWNER, SETUID, SETGID, ' +
          'no new privileges, no host folders, network none',
      });
    });

    it('doctor inspects the attached ones and warns of each that lets its work out, with what to change', async () => {
      const report = (await t.core.invoke('doctor.run', { timeout_ms: 20_000 })) as DoctorReport;
      const row = (target: string) => report.targets.find((x) => x.name === target);
      // Doctor inspects without starting: one that cannot start reads "stopped" and is judged all the same.
      for (const target of ['box', ...Object.keys(attached).filter(tested)]) expect(row(target)?.ok, target).toBe(true);
      expect(row('plain')?.sandbox).toMatchObject({ state: 'sandboxed', kind: 'container', network: false });
      expect(row('plain')?.sandbox?.confinement).toMatch(/^a container you attached: runs as root, .*no host paths$/);
      const warnings = report.warnings ?? [];
      const expected: Record<string, string> = {
        priv: 'it is privileged (--privileged) — recreate it without --privileged',
        sock:
          `a container engine's socket is inside (${fakeSocket} at /var/run/docker.sock) — ` +
          'remove the mount at /var/run/docker.sock',
        hostnet: "it shares the host's network (--network host) — recreate it with a network of its own",
      };
      for (const [target, words] of Object.entries(expected).filter(([target]) => tested(target)))
        expect(
          warnings.find((w) => w.startsWith(`target "${target}" `)),
          target,
        ).toContain(`runs agent work unsandboxed: ${words}`);
      expect(warnings.filter((w) => /target "(box|plain)"/.test(w))).toEqual([]);
      expect(warnings).toHaveLength(Object.keys(expected).filter(tested).length);
      // TargetInfo says the same (the sidebar and `targets list`).
      for (const [target, reason] of Object.entries(reasons).filter(([target]) => tested(target)))
        expect(info(target)?.sandbox, target).toMatchObject({ state: 'unsandboxed', kind: 'container', reason });
      expect(info('plain')?.sandbox?.state).toBe('sandboxed');
    });

    it('"Approve command" on a container that lets its work out says it runs unsandboxed, and why', async () => {
      // The privileged one where this engine starts it, else the one with the socket inside.
      const target = ['priv', 'sock'].find(started);
      if (!target) throw new Error(`no unsandboxed container started on ${te.engine}: ${[...unstarted.values()]}`);
      const held = t.core.callTool('terminal', { command: 'rm -rf /tmp/x', execution_target: target }, 'mcp');
      const failed = held.then(
        () => 'it ran unasked',
        (err: unknown) => why(err),
      );
      let pending = t.core.approvals.list()[0];
      while (!pending) {
        const early = await Promise.race([failed, new Promise((resolve) => setTimeout(resolve, 20, undefined))]);
        if (early !== undefined) throw new Error(`no approval asked on ${target}: ${String(early)}`);
        pending = t.core.approvals.list()[0];
      }
      expect(pending).toMatchObject({
        unsandboxed: true,
        sandbox: { state: 'unsandboxed', kind: 'container', reason: reasons[target] },
      });
      t.core.approvals.decide({ id: pending.id, decision: 'deny' }, 'ui');
      await expect(held).rejects.toMatchObject({ code: 'approval_denied' });
    });

    it('a container made again with other settings is seen at the next connect', async () => {
      const r = await t.core.callTool('terminal', { command: 'echo plain', execution_target: 'plain' }, 'test');
      expect(String(r.output)).toContain('plain');
      expect(info('plain')?.sandbox?.state).toBe('sandboxed');
      await docker.getContainer(name('plain')).remove({ force: true });
      await makeContainer('plain', { NetworkMode: 'none', PidMode: 'host' });
      const again = await t.core.callTool('terminal', { command: 'echo again', execution_target: 'plain' }, 'test');
      expect(String(again.output)).toContain('again');
      expect(info('plain')?.sandbox).toMatchObject({
        state: 'unsandboxed',
        reason: "it shares the host's processes (--pid host)",
      });
    });
  });
