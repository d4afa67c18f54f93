import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { DockerSpec } from './fields.js';
import {
  forbiddenMount,
  envList,
  killJobsScript,
  managedContainerName,
  managedContainerOptions,
  managedLabels,
  parseMemory,
  pickHome,
} from './containerConfig.js';
import { fileModeType, parsePathStat } from './pathStat.js';

describe('parseMemory', () => {
  it.each([
    ['512', 512],
    ['1k', 1024],
    ['512m', 512 * 1024 ** 2],
    ['2G', 2 * 1024 ** 3],
  ])('%s', (v, want) => expect(parseMemory(v)).toBe(want));
  it('rejects nonsense', () => expect(() => parseMemory('1.5g')).toThrow());
});

describe('managedContainerOptions', () => {
  const labels = managedLabels('box', 'g1', 'p');
  const guarded = { profile: '/home/me/.switchboard', home: '/home/me', sockets: ['/srv/engine.sock'] };
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'defaults: locked down, engine default network, no binds',
      {},
      {
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        PidsLimit: 256,
        Binds: [],
        NetworkMode: undefined,
        Memory: undefined,
        NanoCpus: undefined,
      },
    ],
    [
      'limits',
      { docker_cpus: 1.5, docker_memory: '256m', docker_pids_limit: 64 },
      { NanoCpus: 1_500_000_000, Memory: 256 * 1024 ** 2, PidsLimit: 64 },
    ],
    [
      'network none and volumes as listed',
      { docker_network: 'none', docker_volumes: ['/srv/data:/data:ro'] },
      { NetworkMode: 'none', Binds: ['/srv/data:/data:ro'] },
    ],
  ])('%s', (_, extra, want) => {
    const spec = DockerSpec.parse({ backend: 'docker', docker_image: 'busybox', ...extra });
    const o = managedContainerOptions(spec, labels, 'n', guarded);
    for (const [k, v] of Object.entries(want)) expect((o.HostConfig as Record<string, unknown>)[k], k).toEqual(v);
    expect(o.HostConfig?.CapAdd).toEqual(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID']);
    expect(o.Labels).toEqual({
      'switchboard.target': 'box',
      'switchboard.generation': 'g1',
      'switchboard.profile': 'p',
    });
  });
  it('passes docker_env as Env', () => {
    const spec = DockerSpec.parse({ backend: 'docker', docker_image: 'busybox', docker_env: { A: '1', B: 'x y' } });
    expect(managedContainerOptions(spec, labels, 'n', guarded).Env).toEqual(['A=1', 'B=x y']);
  });
});

describe('forbiddenMount: a managed container never mounts the profile or an engine socket', () => {
  const guarded = { profile: '/home/me/.switchboard', home: '/home/me', sockets: ['/srv/engine.sock'] };
  it.each<[string, boolean]>([
    ['/home/me/.switchboard:/sb', true],
    ['~/.switchboard/plugins:/p:ro', true],
    ['~:/home', true],
    ['/home:/h', true],
    ['/:/host:ro', true],
    ['/var/run/docker.sock:/var/run/docker.sock', true],
    ['/run:/run', true],
    ['/srv/engine.sock:/e.sock', true],
    ['/srv:/srv', true],
    ['/home/me/project:/work', false],
    ['~/project:/w', false],
    ['/home/me/.switchboard-other:/x', false],
    ['data:/data', false],
    ['/srv/data:/data:ro', false],
  ])('%s refused: %s', (volume, refused) => {
    expect(forbiddenMount(volume, guarded) !== undefined).toBe(refused);
  });
  it('is said in one line when a target lists one', () => {
    const spec = DockerSpec.parse({
      backend: 'docker',
      docker_image: 'busybox',
      docker_volumes: ['~/.switchboard:/sb'],
    });
    expect(() => managedContainerOptions(spec, managedLabels('box', 'g1', 'p'), 'n', guarded)).toThrow(
      new RegExp(
        String.raw`^docker_volumes "~\/.switchboard:\/sb" is refused: it would put the Switchboard profile ` +
          String.raw`\(\/home\/me\/.switchboard\) in the container$`,
      ),
    );
  });
});

describe('managedContainerName', () => {
  it('is stable, valid, and differs by generation and profile', () => {
    const a = managedContainerName('box', 'g1', 'p');
    expect(a).toBe(managedContainerName('box', 'g1', 'p'));
    expect(a).toMatch(/^switchboard-box-[0-9a-f]{12}$/);
    expect(managedContainerName('box', 'g2', 'p')).not.toBe(a);
    expect(managedContainerName('box', 'g1', 'q')).not.toBe(a);
  });
});

describe('envList', () => {
  it('later maps win', () => expect(envList({ A: '1', B: '2' }, undefined, { A: '3' })).toEqual(['A=3', 'B=2']));
});

describe('pickHome', () => {
  it.each<[string | undefined, string | undefined, string]>([
    ['/workspace', '/root', '/workspace'],
    ['', '/root', '/root'],
    ['/', '/home/u', '/home/u'],
    [undefined, undefined, '/'],
    [undefined, 'garbage', '/'],
  ])('%s %s', (wd, probed, want) => expect(pickHome(wd, probed)).toBe(want));
});

describe('killJobsScript', () => {
  it('refuses tokens that are not hex', () => expect(() => killJobsScript(["a'; rm -rf /"])).toThrow());
  it.each([[['TERM'] as const], [['HUP', 'TERM'] as const]])('is valid POSIX sh (%s)', (signals) => {
    const r = spawnSync('sh', ['-n', '-c', killJobsScript(['abc123', 'def'], signals)]);
    expect(r.status, r.stderr.toString()).toBe(0);
  });
  it('kills a shell and its children, found by token, and spares others (on this host)', async () => {
    const tagged = spawn('sh', ['-c', 'sleep 61 & sleep 62; echo survived'], {
      env: { ...process.env, __sb_job: 'aa11' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const other = spawn('sleep', ['63'], { env: { ...process.env, __sb_job: 'bb22' }, stdio: 'ignore' });
    let out = '';
    tagged.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise((r) => tagged.once('close', r));
    const k = spawnSync('sh', ['-c', killJobsScript(['aa11'])]);
    expect(k.status).toBe(0);
    await exited;
    expect(out).not.toContain('survived');
    const left = spawnSync('sh', ['-c', 'ps -eo args | grep -c "^sleep 6[12]$" || true']).stdout.toString().trim();
    expect(left).toBe('0');
    expect(other.exitCode).toBeNull();
    other.kill();
  });
  it(
    "with a warm shell's group, also kills its members without " + 'the token but spares the shell (on this host)',
    async () => {
      expect(spawnSync('sh', ['-n', '-c', killJobsScript(['abc123'], ['TERM'], 15, 42)]).status).toBe(0);
      // The shell (group leader) runs a call: a subshell and what it started, none with the call's token.
      const shell = spawn('sh', ['-c', '( sleep 64; echo child-survived ) & wait; echo shell-alive'], {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      shell.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise((r) => setTimeout(r, 200));
      const closed = new Promise((r) => shell.once('close', r));
      expect(spawnSync('sh', ['-c', killJobsScript(['cc33'], ['TERM'], 15, shell.pid ?? 0)]).status).toBe(0);
      await closed;
      expect(out).toBe('shell-alive\n');
    },
  );
});

describe('parsePathStat', () => {
  const enc = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64');
  it.each<[string, string | undefined, ReturnType<typeof parsePathStat>]>([
    [
      'regular file',
      enc({ name: 'a', size: 5, mode: 0o644, linkTarget: '' }),
      { type: 'file', size: 5, perm: 0o644, linkTarget: '' },
    ],
    [
      'directory',
      enc({ name: 'd', size: 4096, mode: 2 ** 31 + 0o755 }),
      { type: 'directory', size: 4096, perm: 0o755, linkTarget: '' },
    ],
    [
      'sticky directory',
      enc({ name: 't', size: 0, mode: 2 ** 31 + 2 ** 20 + 0o777 }),
      { type: 'directory', size: 0, perm: 0o777, linkTarget: '' },
    ],
    [
      'symlink',
      enc({ name: 'l', size: 3, mode: 2 ** 27 + 0o777, linkTarget: '/etc/x' }),
      { type: 'symlink', size: 3, perm: 0o777, linkTarget: '/etc/x' },
    ],
    [
      'socket',
      enc({ name: 's', size: 0, mode: 2 ** 24 + 0o755 }),
      { type: 'other', size: 0, perm: 0o755, linkTarget: '' },
    ],
    ['missing header', undefined, undefined],
    ['garbage', 'not base64 json', undefined],
  ])('%s', (_, header, want) => expect(parsePathStat(header)).toEqual(want));
  it('fileModeType of a char device', () => expect(fileModeType(2 ** 26 + 2 ** 21 + 0o666)).toBe('other'));
});
