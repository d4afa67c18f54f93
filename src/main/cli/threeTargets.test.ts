// Issue 5's acceptance, end to end through `switchboard serve` and `switchboard call`: one local, one SSH and one
// Docker target side by side, each with its own files and cwd; one SSH connection for many calls; sshd restarts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadSshEnv, loadDockerEnv } from '../../../scripts/testEnv.js';
import { PrivateSshd, freePort } from '../../../scripts/privateSshd.js';
import { callTool, ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';

const ssh = loadSshEnv();
const docker = loadDockerEnv();

describe.skipIf(!ssh || !docker)('local, SSH and Docker targets side by side', () => {
  const home = tempHome();
  // Beside the profile, never in it: an agent may change nothing in the profile.
  const localDir = join(tempHome('sb-work-'), 'work');
  // Unique per run, so a directory an earlier run left on the SSH host cannot stand in for this one.
  const remoteDir = `/tmp/sb-three-${randomBytes(4).toString('hex')}`;
  let served: Served;
  let flaky: PrivateSshd;

  const call = (tool: string, args: Record<string, unknown>) => callTool(home, tool, args);

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(localDir);
    flaky = new PrivateSshd(ssh!.config, await freePort());
    await flaky.start();
    const keyPart = ssh!.knownHostsLine.split(' ').slice(1).join(' ');
    writeFileSync(join(home, 'known_hosts'), `${ssh!.knownHostsLine}\n[${ssh!.host}]:${flaky.port} ${keyPart}\n`, {
      mode: 0o600,
    });
    const sshFields = (port: number) =>
      `backend: ssh, ssh_host: ${ssh!.host}, ssh_port: ${port}, ssh_user: ${ssh!.user}, ssh_key: ${ssh!.key}`;
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  default_target: here',
        '  targets:',
        `    here: { backend: local, cwd: ${localDir} }`,
        `    remote: { ${sshFields(ssh!.port)}, cwd: ${remoteDir} }`,
        `    box: { backend: docker, docker_image: "${docker!.image}", docker_host: ` +
          `"unix://${docker!.socket}", docker_network: none, cwd: /work }`,
        `    flaky: { ${sshFields(flaky.port)} }`,
        '',
      ].join('\n'),
    );
    served = await startServe(home);
    // The SSH cwd must exist on the remote side first (mkdir through the target itself).
    await call('terminal', { command: `mkdir -p ${remoteDir}`, execution_target: 'remote', workdir: '/' });
    await call('terminal', { command: 'mkdir -p /work', execution_target: 'box', workdir: '/' });
  });
  afterAll(async () => {
    await served?.stop();
    flaky?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(dirname(localDir), { recursive: true, force: true });
  });

  it("the same relative path holds each target's own marker", async () => {
    for (const t of ['here', 'remote', 'box']) {
      const w = await call('write_file', {
        path: 'notes/marker.txt',
        content: `marker-of-${t}\n`,
        execution_target: t,
      });
      expect(w).toMatchObject({ execution_target: t, bytes_written: `marker-of-${t}\n`.length });
    }
    for (const t of ['here', 'remote', 'box']) {
      const r = await call('read_file', { path: 'notes/marker.txt', execution_target: t });
      expect(r.execution_target).toBe(t);
      expect(String(r.content)).toContain(`marker-of-${t}`);
      const cat = await call('terminal', { command: 'cat notes/marker.txt', execution_target: t });
      expect(cat.output).toBe(`marker-of-${t}\n`);
    }
  });

  it("a cd on one target leaves the others' cwd alone", async () => {
    const before = {
      here: (await call('terminal', { command: 'pwd', execution_target: 'here' })).cwd,
      box: (await call('terminal', { command: 'pwd', execution_target: 'box' })).cwd,
    };
    expect(before).toEqual({ here: localDir, box: '/work' });
    expect((await call('terminal', { command: 'cd notes', execution_target: 'remote' })).cwd).toBe(
      `${remoteDir}/notes`,
    );
    expect((await call('terminal', { command: 'pwd', execution_target: 'remote' })).output).toBe(
      `${remoteDir}/notes\n`,
    );
    expect((await call('terminal', { command: 'pwd', execution_target: 'here' })).output).toBe(`${localDir}\n`);
    expect((await call('terminal', { command: 'pwd', execution_target: 'box' })).output).toBe('/work\n');
  });

  it('200 sequential terminal calls on the SSH target use one SSH connection', async () => {
    const { client, close } = await import('../transport/wsLink.js').then((m) =>
      m.connectCore(served.url.replace('http', 'ws') + 'ws', served.token),
    );
    try {
      for (let i = 0; i < 200; i++) {
        const r = await client.call('tool.call', {
          tool: 'terminal',
          args: { command: `echo ${i}`, execution_target: 'remote' },
          client: 'test',
        });
        expect(r.output).toBe(`${i}\n`);
      }
    } finally {
      close();
    }
    // Established TCP connections from the serve process to this sshd's port.
    const ss = spawnSync('ss', ['-Htnp', 'state', 'established', `( dport = :${ssh!.port} )`], {
      encoding: 'utf8',
    }).stdout;
    const ours = ss.split('\n').filter((l) => l.includes(`pid=${served.child.pid},`));
    expect(ours).toHaveLength(1);
  });

  it("doctor reports every target's health in parallel, without prompting, and exits", async () => {
    const r = await runCli(home, ['doctor', '--json']);
    const doc = JSON.parse(r.stdout) as {
      core: string;
      targets: Array<{ name: string; ok: boolean; problem?: string }>;
    };
    expect(doc.core).toBe('running');
    const byName = Object.fromEntries(doc.targets.map((t) => [t.name, t]));
    for (const t of ['here', 'remote', 'box', 'flaky'])
      expect(byName[t], JSON.stringify(byName[t])).toMatchObject({ ok: true });
    expect(r.status).toBe(0);
  });

  it('sshd restarted mid-run: one clear error, then the next call works', async () => {
    expect((await call('terminal', { command: 'echo up', execution_target: 'flaky' })).output).toBe('up\n');
    flaky.stop();
    const down = await runCli(home, [
      'call',
      'terminal',
      '{"command":"echo again","execution_target":"flaky"}',
      '--json',
    ]);
    expect(down.status).not.toBe(0);
    expect(down.stdout).toBe('');
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(new RegExp(`${ssh!.host}:${flaky.port}`));
    await flaky.start();
    expect((await call('terminal', { command: 'echo again', execution_target: 'flaky' })).output).toBe('again\n');
  });
});
