// Targets on one address share a pooled connection, and so share its failures: each hears one in its own name, not
// in the name of the target that happened to dial first (a fleet on one unreachable host all said "fleet-01").
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Environment, ProviderContext, TargetSnapshot } from '../provider.js';
import { connectionPool, inTargetsName } from './connectionPool.js';
import type { SshSpec } from './fields.js';
import { sshProvider } from './sshProvider.js';

describe('inTargetsName', () => {
  it.each([
    ['connection refused by 10.0.0.9:22 (target "fleet-01")', 'fleet-01', 'fleet-07', 'fleet-07'],
    ['the host key of h:22 (target "fleet-01", SHA256:x) has CHANGED', 'fleet-01', 'fleet-02', 'fleet-02'],
    ['jump host bastion could not reach h:22 (target "a"): refused', 'a', 'b', '(target "b")'],
    ['connection refused by 10.0.0.9:22 (target "fleet-01")', 'fleet-01', 'fleet-01', 'fleet-01'],
    // Another target's name (a jump host's) is its own, and stays.
    ['jump host bastion (target "bastion") refused', 'fleet-01', 'fleet-02', 'bastion'],
  ])('%s, told to the holder named %s → %s', (message, from, to, expected) => {
    const told = inTargetsName(message, from, to);
    expect(told).toContain(expected);
    if (from !== to) expect(told).not.toContain(`target "${from}"`);
  });
});

describe('one unreachable address, many targets', () => {
  const home = mkdtempSync(join(tmpdir(), 'sb-pool-names-'));
  const open: Environment[] = [];
  afterAll(async () => {
    await Promise.all(open.map((e) => e.cleanup('shutdown')));
    await connectionPool.closeAll();
    rmSync(home, { recursive: true, force: true });
  });

  it('each target says the failure in its own name: its calls, its probe, its health', async () => {
    // A port nobody listens on: a server that took one and let it go.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const a = server.address();
        server.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
      });
    });
    const reported = new Map<string, string | undefined>();
    const ctx: ProviderContext = {
      home,
      resolveSpec: () => undefined,
      reportReachability: (identity, problem) => reported.set(identity, problem),
    };
    const key = join(home, 'id_ed25519');
    spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    const spec: SshSpec = { backend: 'ssh', ssh_host: '127.0.0.1', ssh_port: port, ssh_user: 'nobody', ssh_key: key };
    const names = ['fleet-01', 'fleet-02', 'fleet-03'];
    const envs = names.map((name) => {
      const snapshot: TargetSnapshot = {
        name,
        generation: 'g1',
        identity: `${name}#g1`,
        source: 'runtime',
        state: 'active',
        spec,
        flags: sshProvider.flags,
        timeoutSec: 30,
      };
      const env = sshProvider.createEnvironment(snapshot, ctx);
      open.push(env);
      return env;
    });
    // Probed together, as doctor does: the later ones join the first one's attempt.
    const probes = await Promise.all(envs.map((e) => e.probe?.()));
    for (const [i, name] of names.entries()) {
      expect(probes[i]).toMatchObject({ ok: false, problem: expect.stringContaining(`(target "${name}")`) });
      expect(reported.get(`${name}#g1`)).toContain(`(target "${name}")`);
    }
    const run = { cwd: '/tmp', timeoutMs: 10_000, maxOutputChars: 1000 };
    await expect(envs[2]!.exec('true', run)).rejects.toMatchObject({
      code: 'target_unreachable',
      message: expect.stringContaining('(target "fleet-03")'),
    });
  });
});
