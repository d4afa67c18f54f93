// The SSH pool shares a connection only between environments that log in the same way (against the loopback sshd).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSshEnv, type SshTestEnv } from '../../../../../scripts/testEnv.js';
import type { SshSpec } from './fields.js';
import type { Environment, TargetSnapshot } from '../provider.js';
import { configureSshPool, connectionPool } from './connectionPool.js';
import { sshProvider } from './sshProvider.js';

const env = loadSshEnv();

describe.skipIf(!env)('SSH pool keyed by credentials', () => {
  const e = env as SshTestEnv;
  const dir = mkdtempSync(join(tmpdir(), 'sb-pool-'));
  const sbHome = join(dir, 'sb');
  const savedHome = process.env.HOME;
  const savedAgent = process.env.SSH_AUTH_SOCK;
  const open: Environment[] = [];
  /** A key the server does not know. */
  const strangerKey = join(dir, 'stranger');

  beforeAll(() => {
    process.env.HOME = join(dir, 'home');
    delete process.env.SSH_AUTH_SOCK;
    configureSshPool({ releaseGraceMs: 30_000 });
    const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', strangerKey], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
    spawnSync('mkdir', ['-p', sbHome]);
    writeFileSync(join(sbHome, 'known_hosts'), `${e.knownHostsLine}\n`);
  });
  afterAll(async () => {
    await Promise.all(open.map((x) => x.cleanup('shutdown')));
    await connectionPool.closeAll();
    configureSshPool({ releaseGraceMs: 0 });
    process.env.HOME = savedHome;
    if (savedAgent !== undefined) process.env.SSH_AUTH_SOCK = savedAgent;
    rmSync(dir, { recursive: true, force: true });
  });

  const spec = (key: string): SshSpec => ({
    backend: 'ssh',
    ssh_host: e.host,
    ssh_port: e.port,
    ssh_user: e.user,
    ssh_key: key,
  });
  const envFor = (name: string, generation: string, key: string): Environment => {
    const snapshot: TargetSnapshot = {
      name,
      generation,
      identity: `${name}#${generation}`,
      source: 'runtime',
      state: 'active',
      spec: spec(key),
      flags: sshProvider.flags,
      timeoutSec: 180,
    };
    const x = sshProvider.createEnvironment(snapshot, { home: sbHome, resolveSpec: () => undefined });
    open.push(x);
    return x;
  };
  const run = { cwd: '/tmp', timeoutMs: 20_000, maxOutputChars: 10_000 };

  it("a target with a key the server refuses does not ride on another target's connection", async () => {
    const good = envFor('good', 'g1', e.key);
    expect((await good.exec('echo good', run)).output).toBe('good\n');
    const bad = envFor('bad', 'g1', strangerKey);
    await expect(bad.exec('echo bad', run)).rejects.toMatchObject({
      code: 'auth_failed',
      message: expect.stringMatching(/authentication failed/),
    });
    // Same user@host:port, two slots: one per way of logging in.
    expect(connectionPool.stats().filter((s) => s.key === `${e.user}@${e.host}:${e.port}`)).toHaveLength(2);
  });

  it('re-registering with a corrected key works while the old generation still holds its slot', async () => {
    const wrong = envFor('fixme', 'g1', strangerKey);
    await expect(wrong.exec('true', run)).rejects.toMatchObject({ code: 'auth_failed' });
    // The corrected generation: a different key path.
    const fixedPath = envFor('fixme', 'g2', e.key);
    expect((await fixedPath.exec('echo fixed', run)).output).toBe('fixed\n');
    // Or the same path with the right key written over it: a new file identity, a new slot.
    const inPlace = join(dir, 'inplace');
    copyFileSync(strangerKey, inPlace);
    const before = envFor('inplace', 'g1', inPlace);
    await expect(before.exec('true', run)).rejects.toMatchObject({ code: 'auth_failed' });
    rmSync(inPlace);
    copyFileSync(e.key, inPlace);
    const after = envFor('inplace', 'g2', inPlace);
    expect((await after.exec('echo in place', run)).output).toBe('in place\n');
  });
});
