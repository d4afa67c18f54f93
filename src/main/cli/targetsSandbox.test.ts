// `switchboard targets` and the sandbox setting, without a Core: list and show say where agent work runs, register
// takes --sandbox, a misspelt key is named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxAvailability } from '../core/sandbox/index.js';
import { runCliAtTerminal } from '../../../scripts/cliHarness.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const root = mkdtempSync(join(tmpdir(), 'sb-cli-sandbox-'));
const home = join(root, 'profile');
const env = { ...process.env, SWITCHBOARD_HOME: home, HOME: join(root, 'person') };

function sb(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(repo, 'bin/switchboard.js'), ...args], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  execFileSync(process.execPath, [join(repo, 'scripts/build.mjs'), 'node'], { cwd: repo, stdio: 'pipe' });
  mkdirSync(home, { recursive: true });
  mkdirSync(env.HOME, { recursive: true });
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'terminal:',
      '  targets:',
      `    boxed: { backend: local, cwd: ${root} }`,
      `    open: { backend: local, cwd: ${root}, sandbox: off }`,
      `    offline: { backend: local, cwd: ${root}, sandbox: { network: false, writable: [~/.cache] } }`,
      '',
    ].join('\n'),
  );
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('targets and the sandbox', () => {
  const available = sandboxAvailability();
  const sandboxed = available.ok ? `sandboxed (${available.kind})` : `unsandboxed (${available.reason})`;

  it('list says sandboxed (bubblewrap) or unsandboxed with the reason', () => {
    const r = sb('targets', 'list');
    expect(r.code).toBe(0);
    const line = (name: string): string => r.stdout.split('\n').find((l) => new RegExp(`^[* ] ${name} `).test(l)) ?? '';
    expect(line('boxed')).toContain(sandboxed);
    expect(line('open')).toContain('unsandboxed (sandbox: off in its spec)');
    if (available.ok) expect(line('offline')).toContain(`sandboxed (${available.kind}, no network)`);
    const doc = JSON.parse(sb('targets', 'list', '--json').stdout) as {
      targets: Array<{ name: string; sandbox?: unknown }>;
    };
    expect(doc.targets.find((t) => t.name === 'open')?.sandbox).toEqual({
      state: 'unsandboxed',
      reason: 'sandbox: off in its spec',
    });
  });

  it('show has a sandbox row', () => {
    expect(sb('targets', 'show', 'open').stdout).toMatch(/sandbox\s+unsandboxed \(sandbox: off in its spec\)/);
    expect(sb('targets', 'show', 'boxed').stdout).toMatch(
      new RegExp(`sandbox\\s+${sandboxed.replace(/[()]/g, '\\$&')}`),
    );
  });

  it('a misspelt key in config.yaml is named, inside the setting or beside it', () => {
    const other = join(root, 'misspelt');
    mkdirSync(other);
    const list = (target: string): string => {
      writeFileSync(
        join(other, 'config.yaml'),
        `terminal:\n  targets:\n    box: { backend: local, cwd: ${root}, ${target} }\n`,
      );
      const r = spawnSync(process.execPath, [join(repo, 'bin/switchboard.js'), 'targets', 'list'], {
        env: { ...env, SWITCHBOARD_HOME: other },
        encoding: 'utf8',
      });
      expect(r.status).not.toBe(0);
      return r.stderr;
    };
    expect(list('sandbox: { netwrk: false }')).toMatch(/target "box": sandbox: Unrecognized key: "netwrk"/);
    expect(list('sandbx: off')).toMatch(/unknown key "sandbx" in target "box".*did you mean "sandbox"/);
  });

  // --sandbox off is a person's (targetsWeaken.test.ts): at a terminal, with --yes.
  it('register takes --sandbox off or a JSON setting; a misspelt key is named', async () => {
    const off = await runCliAtTerminal(
      home,
      ['targets', 'register', 'rt', '--backend', 'local', '--cwd', root, '--sandbox', 'off', '--yes'],
      { HOME: env.HOME },
    );
    expect(off.stdout).toContain('registered local target "rt"');
    expect(JSON.parse(sb('targets', 'show', 'rt', '--json').stdout)).toMatchObject({
      target: { sandbox: { state: 'unsandboxed', reason: 'sandbox: off in its spec' } },
    });
    const net = sb(
      'targets',
      'register',
      'rn',
      '--backend',
      'local',
      '--cwd',
      root,
      '--set',
      'sandbox={"network":false}',
      '--json',
    );
    expect(net.stderr).toBe('');
    expect(JSON.parse(net.stdout)).toMatchObject({ target: { spec: { sandbox: { network: false } } } });
    const bad = sb('targets', 'register', 'rb', '--backend', 'local', '--cwd', root, '--sandbox', '{"netwrk":false}');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/netwrk/);
  });
});
