// `switchboard targets …` end to end: a served Core, the CLI writing the registry from other processes, exit codes,
// --json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const root = mkdtempSync(join(tmpdir(), 'sb-cli-targets-'));
const home = join(root, 'home');
const work = join(root, 'work');
const env = { ...process.env, SWITCHBOARD_HOME: home };
let serve: ChildProcess | undefined;

function sb(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(repo, 'bin/switchboard.js'), ...args], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function ok(...args: string[]): string {
  const r = sb(...args);
  expect(r.stderr, `switchboard ${args.join(' ')}`).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}
const json = (...args: string[]): Record<string, unknown> => JSON.parse(ok(...args, '--json'));
const call = (args: Record<string, unknown>) => sb('call', 'terminal', JSON.stringify(args), '--json');

beforeAll(async () => {
  execFileSync(process.execPath, [join(repo, 'scripts/build.mjs'), 'node'], { cwd: repo, stdio: 'pipe' });
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${root} }\n`);
  serve = spawn(process.execPath, [join(repo, 'bin/switchboard.js'), 'serve', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    serve!.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('serving at')) resolve();
    });
    serve!.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}, 60_000);

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    serve.kill('SIGTERM');
    await new Promise((r) => serve!.once('exit', r));
  }
  rmSync(root, { recursive: true, force: true });
});

describe('targets register → call, with a Core serving', () => {
  it('a target registered from another process is usable on the very next call', () => {
    const reg = json('targets', 'register', 'rt', '--backend', 'local', '--cwd', work);
    expect(reg).toMatchObject({
      action: 'registered',
      target: { name: 'rt', source: 'runtime', state: 'active', provider: 'cli' },
    });
    const generation = (reg.target as { generation: string }).generation;
    const r = call({ command: 'pwd', execution_target: 'rt' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({
      execution_target: 'rt',
      generation,
      output: work + '\n',
      exit_code: 0,
    });
  });

  it('list shows config and runtime targets together with source, state and generation', () => {
    const list = json('targets', 'list') as { targets: Array<Record<string, unknown>>; problems: string[] };
    expect(list.targets.find((t) => t.name === 'local')).toMatchObject({ source: 'config', state: 'active' });
    expect(list.targets.find((t) => t.name === 'rt')).toMatchObject({
      source: 'runtime',
      state: 'active',
      generation: expect.stringMatching(/^r/),
    });
    const table = ok('targets', 'list');
    expect(table).toMatch(/rt\s+local\s+runtime\s+active\s+(reachable|checking)\s+r[0-9a-f]{12}/);
    expect(table).toMatch(/local\s+local\s+config\s+active\s+(reachable|checking)\s+c[0-9a-f]{11}/);
  });

  it('show prints one target, as a table or one JSON document', () => {
    expect(json('targets', 'show', 'rt')).toMatchObject({
      target: { name: 'rt', backend: 'local', cwd: work, provider: 'cli' },
      problems: [],
    });
    expect(ok('targets', 'show', 'rt')).toMatch(/source\s+runtime/);
    const miss = sb('targets', 'show', 'rtt');
    expect(miss.code).toBe(2);
    expect(miss.stderr.trim().split('\n')).toHaveLength(1);
    expect(miss.stderr).toContain('did you mean "rt"');
  });

  it('drain: a background command started before keeps running; a new call is refused', () => {
    const bg = JSON.parse(
      call({ command: 'sleep 1; echo bg-finished', execution_target: 'rt', background: true }).stdout,
    ) as { session_id: string };
    expect(bg.session_id).toBeTruthy();
    expect(json('targets', 'drain', 'rt')).toMatchObject({ action: 'drained', target: { state: 'draining' } });
    const refused = call({ command: 'true', execution_target: 'rt' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('draining');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    const polled = JSON.parse(
      sb('call', 'process', JSON.stringify({ action: 'wait', session_id: bg.session_id, timeout: 10 }), '--json')
        .stdout,
    );
    expect(polled).toMatchObject({ status: 'exited', exit_code: 0 });
    expect(polled.output).toContain('bg-finished');
    expect(json('targets', 'show', 'rt')).toMatchObject({ target: { state: 'draining' } });
  });

  it('replace makes a new generation that new calls use', () => {
    const before = (json('targets', 'show', 'rt').target as { generation: string }).generation;
    const rep = json(
      'targets',
      'register',
      'rt',
      '--backend',
      'local',
      '--cwd',
      root,
      '--replace',
      '--if-generation',
      before,
      '--generation',
      'v2',
    );
    expect(rep).toMatchObject({
      action: 'replaced',
      previous_generation: before,
      target: { generation: 'v2', state: 'active' },
    });
    expect(JSON.parse(call({ command: 'pwd', execution_target: 'rt' }).stdout)).toMatchObject({
      generation: 'v2',
      output: root + '\n',
    });
  });

  it('remove: new calls fail with unknown target', () => {
    expect(json('targets', 'remove', 'rt', '--generation', 'v2')).toMatchObject({
      action: 'removed',
      target: { name: 'rt', state: 'removed' },
    });
    const r = call({ command: 'pwd', execution_target: 'rt' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown target "rt"');
  });
});

describe('refusals exit 2 with one stderr line', () => {
  beforeAll(() => {
    ok(
      'targets',
      'register',
      'owned',
      '--backend',
      'local',
      '--provider',
      'ctl',
      '--owner-id',
      'box-7',
      '--generation',
      'g1',
    );
  });
  const refusals: Array<[string, string[], string]> = [
    [
      'an existing name without --replace',
      ['targets', 'register', 'owned', '--backend', 'local', '--provider', 'ctl', '--owner-id', 'box-7'],
      'already registered',
    ],
    [
      'another provider replacing',
      ['targets', 'register', 'owned', '--backend', 'local', '--replace'],
      'belongs to provider "ctl"',
    ],
    ['another provider draining', ['targets', 'drain', 'owned'], 'belongs to provider "ctl"'],
    [
      'another owner removing',
      ['targets', 'remove', 'owned', '--provider', 'ctl', '--owner-id', 'box-8'],
      'belongs to owner "box-7"',
    ],
    [
      'a failed compare-and-swap',
      [
        'targets',
        'register',
        'owned',
        '--backend',
        'local',
        '--provider',
        'ctl',
        '--owner-id',
        'box-7',
        '--if-generation',
        'g0',
      ],
      'not g0',
    ],
    [
      'another spec under a generation that had one',
      [
        'targets',
        'register',
        'owned',
        '--backend',
        'local',
        '--cwd',
        '/elsewhere',
        '--provider',
        'ctl',
        '--owner-id',
        'box-7',
        '--replace',
        '--generation',
        'g1',
      ],
      'target "owned" generation g1 was registered before with another spec',
    ],
    [
      'a stale teardown',
      ['targets', 'remove', 'owned', '--provider', 'ctl', '--owner-id', 'box-7', '--generation', 'g0'],
      'not g0',
    ],
    ['an invalid spec', ['targets', 'register', 'bad', '--backend', 'ssh', '--user', 'u'], 'ssh_host'],
    [
      'a flag the backend lacks',
      ['targets', 'register', 'bad', '--backend', 'local', '--host', 'h'],
      '--host sets ssh_host',
    ],
    ['a config target name', ['targets', 'register', 'local', '--backend', 'local'], 'config target'],
    [
      'a password via --set',
      ['targets', 'register', 'pw', '--backend', 'ssh', '--host', 'h', '--set', 'ssh_password=hunter2', '--json'],
      'ssh_password',
    ],
    [
      'key material via --key',
      [
        'targets',
        'register',
        'km',
        '--backend',
        'ssh',
        '--host',
        'h',
        '--key',
        '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----',
        '--json',
      ],
      'private key',
    ],
    [
      'an unknown backend',
      ['targets', 'register', 'x', '--backend', 'dokcer', '--image', 'i'],
      'did you mean "docker"',
    ],
  ];
  for (const [what, args, says] of refusals) {
    it(what, () => {
      const r = sb(...args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(says);
      for (const secret of ['hunter2', 'BEGIN OPENSSH', 'b3BlbnNzaC1rZXktdjE']) expect(r.stderr).not.toContain(secret);
    });
  }

  it('nothing refused reached the file', () => {
    const doc = readFileSync(join(home, 'runtime-targets.json'), 'utf8');
    for (const s of ['hunter2', 'PRIVATE KEY', '"pw"', '"km"', '"bad"']) expect(doc).not.toContain(s);
  });

  it('the owner may drain and remove', () => {
    expect(json('targets', 'drain', 'owned', '--provider', 'ctl', '--owner-id', 'box-7')).toMatchObject({
      action: 'drained',
    });
    expect(
      json('targets', 'remove', 'owned', '--provider', 'ctl', '--owner-id', 'box-7', '--generation', 'g1'),
    ).toMatchObject({ action: 'removed' });
  });

  it('a removed generation comes back only with the spec it had', () => {
    const again = [
      'targets',
      'register',
      'owned',
      '--backend',
      'local',
      '--provider',
      'ctl',
      '--owner-id',
      'box-7',
      '--generation',
      'g1',
    ];
    const r = sb(...again, '--cwd', '/elsewhere');
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('target "owned" generation g1 was registered before with another spec'),
    ]);
    expect(json(...again)).toMatchObject({ action: 'registered', target: { generation: 'g1' } });
    ok('targets', 'remove', 'owned', '--provider', 'ctl', '--owner-id', 'box-7');
  });
});

describe('flags and --set come from the backend declarations', () => {
  it('typed values, and the declared summary in the list', () => {
    const doc = json(
      'targets',
      'register',
      'typed',
      '--backend',
      'ssh',
      '--host',
      'h.example',
      '--user',
      'agent',
      '--set',
      'ssh_port=2200',
      '--set',
      'ssh_agent=true',
    ) as { target: { spec: Record<string, unknown> } };
    expect(doc.target.spec).toEqual({
      backend: 'ssh',
      ssh_host: 'h.example',
      ssh_user: 'agent',
      ssh_port: 2200,
      ssh_agent: true,
    });
    expect(ok('targets', 'list')).toMatch(/typed\s+ssh\s+agent@h\.example:2200\s+runtime/);
    const bad = sb('targets', 'register', 'typed2', '--backend', 'ssh', '--host', 'h', '--set', 'ssh_port=abc');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--set ssh_port must be a whole number');
    ok('targets', 'remove', 'typed');
  }, 180_000);
});

describe('--json is secret-free', () => {
  it('shows routing fields only', () => {
    const out = ok(
      'targets',
      'register',
      'sec',
      '--backend',
      'ssh',
      '--host',
      'h.example',
      '--port',
      '2222',
      '--user',
      'agent',
      '--key',
      '~/.ssh/id_ed25519',
      '--set',
      'ssh_password_env=MY_SECRET_PW',
      '--json',
    );
    const doc = JSON.parse(out) as { target: { spec: Record<string, unknown> } };
    expect(doc.target.spec).toEqual({
      backend: 'ssh',
      ssh_host: 'h.example',
      ssh_port: 2222,
      ssh_user: 'agent',
      ssh_key: '~/.ssh/id_ed25519',
    });
    expect(out).not.toContain('MY_SECRET_PW');
    for (const args of [
      ['targets', 'show', 'sec', '--json'],
      ['targets', 'list', '--json'],
    ])
      expect(ok(...args)).not.toContain('MY_SECRET_PW');
    ok('targets', 'remove', 'sec');
  });
});

describe('without a running Core', () => {
  it('register, list and remove work on the file alone', async () => {
    serve!.kill('SIGTERM');
    await new Promise((r) => serve!.once('exit', r));
    const reg = json(
      'targets',
      'register',
      'offline',
      '--backend',
      'docker',
      '--image',
      'python:3.12',
      '--cwd',
      '/workspace',
    );
    expect(reg).toMatchObject({
      action: 'registered',
      target: { backend: 'docker', spec: { docker_image: 'python:3.12' } },
    });
    const list = json('targets', 'list') as { targets: Array<{ name: string; source: string }>; live: boolean };
    expect(list.targets.map((t) => `${t.name}:${t.source}`)).toEqual(
      expect.arrayContaining(['local:config', 'offline:runtime']),
    );
    expect(list.live).toBe(false);
    expect(json('targets', 'show', 'offline')).toMatchObject({
      target: { name: 'offline', backend: 'docker' },
      live: false,
    });
    // A person reading the table is told, in one line, that nothing here is live.
    for (const args of [
      ['targets', 'list'],
      ['targets', 'show', 'offline'],
    ]) {
      const r = sb(...args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('offline');
      expect(r.stderr.trim().split('\n')).toEqual([
        'switchboard: no Core is running; showing config.yaml and the registry as stored (state is not live)',
      ]);
    }
    expect(existsSync(join(home, 'core.json')), 'no Core was started').toBe(false);
    expect(json('targets', 'remove', 'offline')).toMatchObject({ action: 'removed' });
  }, 180_000);

  it('reports a broken registry without crashing the reader', () => {
    writeFileSync(
      join(home, 'runtime-targets.json'),
      '{"version":1,"targets":{"ok":{"spec":{"backend":"local"},"provider":"cli","owner_id":"",' +
        '"generation":"g1","state":"active","created_at":"t","updated_at":"t"},' +
        '"bad":{"spec":{"backend":"ssh"}}}}',
      { mode: 0o600 },
    );
    const r = sb('targets', 'list');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ok\s+local\s+runtime/);
    expect(r.stderr).toContain('runtime target "bad"');
  });
});
