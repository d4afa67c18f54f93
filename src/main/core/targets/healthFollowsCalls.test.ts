// Target health follows calls at once, through a real Core and an sshd of the test's own: a call that gets through
// shows the target reachable, one that cannot connect shows it unreachable, neither waiting for the next probe.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../core.js';
import { configureSshPool } from '../backends/providers.js';
import type { TargetInfo } from '../../../shared/targets.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { loadSshEnv } from '../../../../scripts/testEnv.js';
import { PrivateSshd, freePort } from '../../../../scripts/privateSshd.js';

const ssh = loadSshEnv();

describe.skipIf(!ssh)('target health follows calls', () => {
  const home = mkdtempSync(join(tmpdir(), 'sb-health-calls-'));
  let sshd: PrivateSshd;
  let core: Core;
  const row = (): TargetInfo => {
    const t = core.listTargets().find((x) => x.name === 'flaky');
    if (!t) throw new Error('no target flaky');
    return t;
  };

  beforeAll(async () => {
    configureSshPool({ releaseGraceMs: 0 });
    sshd = new PrivateSshd(ssh!.config, await freePort());
    const keyPart = ssh!.knownHostsLine.split(' ').slice(1).join(' ');
    writeFileSync(join(home, 'known_hosts'), `[${ssh!.host}]:${sshd.port} ${keyPart}\n`, { mode: 0o600 });
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  targets:',
        `    flaky: { backend: ssh, ssh_host: ${ssh!.host}, ssh_port: ${sshd.port}, ssh_user: ${ssh!.user}, ` +
          `ssh_key: ${ssh!.key}, cwd: /tmp }`,
        '',
      ].join('\n'),
    );
    // Probes so rare that only the first one (at start) runs while the test does: what changes the rows is the calls.
    core = await new Core({
      home,
      healthTiming: { reachableMs: 600_000, retryMinMs: 600_000, retryMaxMs: 600_000 },
    }).start();
  });
  afterAll(async () => {
    await core?.close();
    sshd?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it(
    'sshd down: the first probe says unreachable; sshd up: the first call that gets through turns the row ' +
      'reachable at once',
    async () => {
      await vi.waitFor(() => expect(row().health?.status).toBe('unreachable'), { timeout: 20_000 });
      await sshd.start();
      const r = await core.callTool('terminal', { command: 'echo up', execution_target: 'flaky' }, 'test');
      expect(r).toMatchObject({ output: 'up\n', exit_code: 0 });
      // Right after the call, not at the next probe (ten minutes away).
      expect(row()).toMatchObject({ state: 'active', health: { status: 'reachable' } });
      expect(row().problem).toBeUndefined();
    },
  );

  it(
    'sshd down again: the call that cannot connect turns the row unreachable at once; back up, ' +
      'the next call clears it',
    async () => {
      sshd.stop();
      const err = await core.callTool('terminal', { command: 'echo again', execution_target: 'flaky' }, 'test').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SwitchboardError);
      expect((err as SwitchboardError).code).toBe('target_unreachable');
      expect(row()).toMatchObject({ state: 'unreachable', health: { status: 'unreachable' } });
      await sshd.start();
      await core.callTool('terminal', { command: 'true', execution_target: 'flaky' }, 'test');
      expect(row()).toMatchObject({ state: 'active', health: { status: 'reachable' } });
    },
  );
});
