// Issue 40, played as an agent with tool calls only: an SSH target's work runs in bubblewrap on its host, as the
// remote account, and holds the local sandbox's line there: that account's keys and cloud files unreadable, its
// start-up files and toolchains not plantable, its other processes invisible, builds in the workspace working. A host
// without bubblewrap is said to be unsandboxed, with why and what to install. Against private sshds on loopback,
// logging in as an account of their own (made here, its home made fresh).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';
import { testUser, type TestUser } from '../../../scripts/asUser.js';
import { PrivateSshd, freePort } from '../../../scripts/privateSshd.js';
import { loadSshEnv } from '../../../scripts/testEnv.js';

const ssh = loadSshEnv();
const account = testUser('sbremote');
const bwrap = spawnSync('bwrap', ['--version']).status === 0;
const why = !ssh
  ? 'no SSH test env (scripts/test-env.sh up)'
  : 'missing' in account
    ? account.missing
    : !bwrap
      ? 'bubblewrap is not installed here'
      : undefined;
if (why) console.log(`sshSandbox.test.ts skipped: ${why}`);

const CANARY = `canary-${process.pid}`;

describe.skipIf(why !== undefined)('agent work on an SSH host runs in its sandbox', () => {
  const user = account as TestUser;
  const home = `/home/${user.name}`;
  const profile = tempHome();
  const noBwrapPath = tempHome('sb-nobwrap-path-');
  let sshd: PrivateSshd & { knownHostsLine: string };
  let bare: PrivateSshd & { knownHostsLine: string };
  let served: Served | undefined;
  let other: ChildProcess | undefined;
  const call = async (command: string, target = 'box') =>
    String((await callTool(profile, 'terminal', { command, execution_target: target })).output);
  /** Make a file or folder in the remote home, owned by the account. */
  const put = (rel: string, text?: string): string => {
    const path = join(home, rel);
    const parts = rel.split('/');
    for (let i = 1; i <= (text === undefined ? parts.length : parts.length - 1); i++) {
      const dir = join(home, ...parts.slice(0, i));
      if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, user.uid, user.gid);
    }
    if (text !== undefined) {
      writeFileSync(path, text, { mode: 0o600 });
      chownSync(path, user.uid, user.gid);
    }
    return path;
  };

  beforeAll(async () => {
    ensureBuilt();
    // '*', not the locked '!' useradd leaves: with UsePAM no, sshd refuses even a key login to a locked account.
    spawnSync('usermod', ['-p', '*', user.name]);
    rmSync(home, { recursive: true, force: true });
    mkdirSync(home, { mode: 0o755 });
    chownSync(home, user.uid, user.gid);
    put('.ssh');
    put('.ssh/authorized_keys', readFileSync(`${ssh!.key}.pub`, 'utf8'));
    put('.ssh/id_ed25519', `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}-key\n`);
    put('.aws/credentials', `[default]\naws_secret_access_key = ${CANARY}-aws\n`);
    put('.bashrc', '# the account\u2019s own\n');
    put('.cargo/bin/cargo', '#!/bin/sh\necho the real cargo\n');
    put('work/readme.txt', 'the workspace\n');
    // The account's other work, started outside any sandbox.
    other = spawn('sleep', ['3131.5'], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
    // A host without bubblewrap: every program on this one's PATH but bwrap.
    chmodSync(noBwrapPath, 0o755);
    const linked = new Set(['bwrap']);
    for (const dir of ['/usr/local/bin', '/usr/bin', '/bin'])
      for (const name of existsSync(dir) ? readdirSync(dir) : [])
        if (!linked.has(name)) {
          linked.add(name);
          symlinkSync(join(dir, name), join(noBwrapPath, name));
        }
    sshd = PrivateSshd.ownConfig(user.name, await freePort(), { sftp: 'internal-sftp' });
    bare = PrivateSshd.ownConfig(user.name, await freePort(), {
      sftp: 'internal-sftp',
      lines: [`SetEnv PATH=${noBwrapPath}`],
    });
    await sshd.start();
    await bare.start();
    writeFileSync(join(profile, 'known_hosts'), `${sshd.knownHostsLine}\n${bare.knownHostsLine}\n`, { mode: 0o600 });
    const at = (port: number) =>
      `backend: ssh, ssh_host: 127.0.0.1, ssh_port: ${port}, ssh_user: ${user.name}, ssh_key: ${ssh!.key}`;
    writeFileSync(
      join(profile, 'config.yaml'),
      [
        'terminal:',
        '  default_target: box',
        '  targets:',
        `    box: { ${at(sshd.port)}, cwd: ~/work }`,
        `    home: { ${at(sshd.port)} }`,
        `    bare: { ${at(bare.port)}, cwd: ~/work }`,
        'approvals:',
        '  mode: off',
        '',
      ].join('\n'),
    );
    served = await startServe(profile);
  }, 120_000);

  afterAll(async () => {
    await served?.stop();
    other?.kill('SIGKILL');
    sshd?.dispose();
    bare?.dispose();
    rmSync(profile, { recursive: true, force: true });
    rmSync(noBwrapPath, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('runs as the account in bubblewrap: no capabilities, its own processes only, and says so', async () => {
    const out = await call('id -un; grep CapEff /proc/self/status; ps ax -o args=');
    expect(out).toContain(user.name);
    expect(out).toMatch(/CapEff:\s+0+\n/);
    expect(out).not.toContain('3131.5');
    expect(await call('pkill -f 3131.5; echo $?')).toBe('1\n');
    expect(other?.exitCode).toBe(null);
    const shown = await runCli(profile, ['targets', 'show', 'box']);
    expect(shown.stdout).toMatch(
      new RegExp(`sandbox\\s+sandboxed \\(bubblewrap on ${user.name}@127\\.0\\.0\\.1:${sshd.port}\\)`),
    );
  });

  it("cannot read the account's keys or cloud files", async () => {
    const out = await call('cat ~/.ssh/id_ed25519 ~/.aws/credentials 2>&1; ls -A ~/.ssh ~/.aws 2>&1');
    expect(out).not.toContain(CANARY);
    const file = await callTool(profile, 'read_file', {
      path: `${home}/.ssh/id_ed25519`,
      execution_target: 'box',
    }).then(
      (r) => JSON.stringify(r),
      (err: unknown) => String(err),
    );
    expect(file).not.toContain(CANARY);
  });

  it('cannot plant start-up files, agent configs or toolchain binaries that run later outside', async () => {
    const plants = [
      '.bashrc',
      '.bash_aliases',
      '.bash_profile',
      '.profile',
      '.zshrc',
      '.config/fish/config.fish',
      '.gitconfig',
      '.ssh/config',
      '.ssh/authorized_keys',
      '.local/bin/git',
      '.cargo/bin/cargo',
      '.config/systemd/user/plant.service',
      '.npmrc',
      '.claude/settings.json',
    ];
    const script = plants
      .map((p) => `mkdir -p "$(dirname ~/${p})" 2>/dev/null; echo ${CANARY}-plant >> ~/${p} 2>/dev/null`)
      .join('\n');
    await call(script, 'box');
    await call(script, 'home');
    const edit = await callTool(profile, 'write_file', {
      path: `${home}/.bash_aliases`,
      content: `${CANARY}-plant\n`,
      execution_target: 'home',
    }).then(
      () => 'written',
      (err: unknown) => String(err),
    );
    expect(edit).not.toBe('written');
    for (const p of plants) {
      const path = join(home, p);
      const text = existsSync(path) && statSync(path).isFile() ? readFileSync(path, 'utf8') : '';
      expect(text, p).not.toContain(`${CANARY}-plant`);
    }
    expect(readFileSync(join(home, '.cargo/bin/cargo'), 'utf8')).toContain('the real cargo');
  });

  it('works in the workspace: files, exports across calls, git, npm ci and a Python venv', async () => {
    await callTool(profile, 'write_file', {
      path: '~/work/made.txt',
      content: 'by the agent\n',
      execution_target: 'box',
    });
    expect(readFileSync(join(home, 'work/made.txt'), 'utf8')).toBe('by the agent\n');
    await call('export SB_REMOTE_KEPT=kept');
    expect(await call('echo "$SB_REMOTE_KEPT"; pwd')).toBe(`kept\n${home}/work\n`);
    const git = await call(
      'git init -q repo && cd repo && git config user.email a@b && git config user.name a && echo x > f && ' +
        'git add f && git commit -qm one && git log --format=%s',
    );
    expect(git).toBe('one\n');
    // A dependency from the workspace itself: npm install writes the lockfile, npm ci installs from it, offline.
    writeFileSync(
      join(home, 'work/package.json'),
      '{ "name": "w", "version": "1.0.0", "dependencies": { "dep": "file:dep" } }\n',
    );
    mkdirSync(join(home, 'work/dep'));
    writeFileSync(join(home, 'work/dep/package.json'), '{ "name": "dep", "version": "1.0.0" }\n');
    spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, join(home, 'work')]);
    const npm =
      'cd ~/work && npm install --offline --no-audit --no-fund >/dev/null 2>&1 && echo installed && ' +
      'npm ci --offline --no-audit --no-fund >/dev/null 2>&1; echo $?; ls package-lock.json';
    expect(await call(npm)).toBe('installed\n0\npackage-lock.json\n');
    if (spawnSync('/usr/bin/python3', ['-m', 'venv', '--help']).status === 0)
      expect(await call('/usr/bin/python3 -m venv v && v/bin/python -m pip --version >/dev/null && echo venv')).toBe(
        'venv\n',
      );
    // The exports of the sandbox stay in its private /tmp, a folder only the account may enter.
    const state = join(home, '.cache/switchboard');
    expect(statSync(state).mode & 0o777).toBe(0o700);
  });

  it('a host without bubblewrap: unsandboxed, with why and what to install, wherever its state shows', async () => {
    expect(await call('echo reached', 'bare')).toBe('reached\n');
    const shown = await runCli(profile, ['targets', 'show', 'bare']);
    expect(shown.stdout).toMatch(/sandbox\s+unsandboxed \(bubblewrap \(bwrap\) is not installed on the host\)/);
    expect(shown.stdout).toMatch(/to hold it in\s+install bubblewrap/);
    const listed = await runCli(profile, ['targets', 'list', '--json']);
    const bareInfo = (
      JSON.parse(listed.stdout) as { targets: { name: string; sandbox?: { state: string; host?: string } }[] }
    ).targets.find((t) => t.name === 'bare');
    expect(bareInfo?.sandbox).toMatchObject({ state: 'unsandboxed', host: `${user.name}@127.0.0.1:${bare.port}` });
    const doctor = await runCli(profile, ['doctor']);
    expect(doctor.stdout + doctor.stderr).toMatch(/bare.*unsandboxed/);
  });
});
