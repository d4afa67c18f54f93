// A host-key prompt that outlives its connection (the server's LoginGraceTime ran out): no crash, no stale prompt.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSshEnv, type SshTestEnv } from '../../../../../scripts/testEnv.js';
import { freePort, waitPort } from '../../../../../scripts/privateSshd.js';
import type { SshSpec } from './fields.js';
import { ApprovalBroker } from '../../approvals/index.js';
import type { HostKeyRequest, ProviderContext, TargetSnapshot } from '../provider.js';
import { configureSshPool, connectionPool } from './connectionPool.js';
import { sshProvider } from './sshProvider.js';

const env = loadSshEnv();

describe.skipIf(!env)('a host-key prompt whose connection is gone', () => {
  const e = env as SshTestEnv;
  const dir = mkdtempSync(join(tmpdir(), 'sb-hkp-'));
  const sbHome = join(dir, 'sb');
  let port = 0;
  let sshdPid = 0;
  const savedHome = process.env.HOME;
  const savedAgent = process.env.SSH_AUTH_SOCK;

  beforeAll(async () => {
    process.env.HOME = join(dir, 'home');
    delete process.env.SSH_AUTH_SOCK;
    mkdirSync(sbHome, { recursive: true });
    configureSshPool({ releaseGraceMs: 0 });
    port = await freePort();
    // The shared test sshd's config with a short LoginGraceTime: it drops a handshake left waiting 2 s.
    const pidFile = join(dir, 'sshd.pid');
    const r = spawnSync(
      '/usr/sbin/sshd',
      [
        '-f',
        e.config,
        '-E',
        join(dir, 'sshd.log'),
        '-o',
        `Port=${port}`,
        '-o',
        `PidFile=${pidFile}`,
        '-o',
        'LoginGraceTime=2',
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`sshd did not start: ${r.stderr}`);
    await waitPort(port);
    sshdPid = Number(readFileSync(pidFile, 'utf8').trim());
  });
  afterAll(async () => {
    await connectionPool.closeAll();
    if (sshdPid) process.kill(sshdPid, 'SIGTERM');
    process.env.HOME = savedHome;
    if (savedAgent !== undefined) process.env.SSH_AUTH_SOCK = savedAgent;
    rmSync(dir, { recursive: true, force: true });
  });

  const spec = (): SshSpec => ({ backend: 'ssh', ssh_host: e.host, ssh_port: port, ssh_user: e.user, ssh_key: e.key });
  const snapshot = (name: string): TargetSnapshot => ({
    name,
    generation: 'g1',
    identity: `${name}#g1`,
    source: 'runtime',
    state: 'active',
    spec: spec(),
    flags: sshProvider.flags,
    timeoutSec: 180,
  });
  const run = { cwd: '/tmp', timeoutMs: 20_000, maxOutputChars: 10_000 };

  it(
    'the server dropping the handshake withdraws the prompt; a late answer is harmless; ' + 'the next call asks afresh',
    async () => {
      const broker = new ApprovalBroker(() => 60);
      const asked: HostKeyRequest[] = [];
      const ctx: ProviderContext = {
        home: sbHome,
        resolveSpec: () => undefined,
        confirmHostKey: async (req, signal) => {
          asked.push(req);
          const d = await broker.request(
            {
              kind: 'host_key',
              title: 'Trust host key?',
              execution_target: req.target,
              host_key: { host: req.host, port: req.port, key_type: req.keyType, fingerprint: req.fingerprint },
            },
            { signal },
          );
          return d.decision === 'deny' ? 'reject' : d.scope === 'always' ? 'trust_always' : 'trust_once';
        },
      };
      const x = sshProvider.createEnvironment(snapshot('grace'), ctx);
      const call = x.exec('echo hi', run);
      await vi.waitFor(() => expect(broker.list()).toHaveLength(1), { timeout: 10_000 });
      const stale = broker.list()[0]!;
      // sshd gives up after LoginGraceTime: the call fails and its prompt is withdrawn, not left pending.
      await expect(call).rejects.toMatchObject({ code: 'target_unreachable' });
      await vi.waitFor(() => expect(broker.list()).toEqual([]), { timeout: 10_000 });
      // A person answering the old prompt late gets a clear "no such approval", and nothing crashes.
      expect(() => broker.decide({ id: stale.id, decision: 'deny' })).toThrow(/no pending approval/);

      // The next call asks again (a fresh prompt), and approving it connects.
      const again = x.exec('echo again', run);
      await vi.waitFor(() => expect(broker.list()).toHaveLength(1), { timeout: 10_000 });
      const fresh = broker.list()[0]!;
      expect(fresh.id).not.toBe(stale.id);
      broker.decide({ id: fresh.id, decision: 'approve', scope: 'once' });
      expect((await again).output).toBe('again\n');
      await x.cleanup('shutdown');
      await connectionPool.closeAll();

      // A key added to known_hosts meanwhile is honoured: no prompt at all.
      const keyPart = e.knownHostsLine.split(' ').slice(1).join(' ');
      writeFileSync(join(sbHome, 'known_hosts'), `[${e.host}]:${port} ${keyPart}\n`);
      const before = asked.length;
      const y = sshProvider.createEnvironment(snapshot('grace2'), ctx);
      expect((await y.exec('echo known', run)).output).toBe('known\n');
      expect(asked.length).toBe(before);
      expect(broker.list()).toEqual([]);
      await y.cleanup('shutdown');
    },
  );

  it('a prompt answered after its connection died does not call into the dead connection', async () => {
    // The prompt ignores withdrawal (an older caller) and answers late: verify must not run on the closed client.
    const late: Array<'reject' | 'trust_once'> = ['reject', 'trust_once'];
    for (const answer of late) {
      const ctx: ProviderContext = {
        home: sbHome + answer,
        resolveSpec: () => undefined,
        confirmHostKey: () => new Promise((resolve) => setTimeout(() => resolve(answer), 3500)),
      };
      const x = sshProvider.createEnvironment(snapshot(`late-${answer}`), ctx);
      await expect(x.exec('true', run)).rejects.toMatchObject({ code: 'target_unreachable' });
      // Wait past the late answer: an uncaught error here fails the run.
      await new Promise((r) => setTimeout(r, 2500));
      await x.cleanup('shutdown');
    }
  });
});
