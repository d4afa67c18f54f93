// Target health through a real Core: probes on start, a dead SSH port, a cwd that is missing, recovery after a failed
// call.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { freePort } from '../../../../scripts/privateSshd.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../core.js';
import type { TargetInfo } from '../../../shared/targets.js';

const root = mkdtempSync(join(tmpdir(), 'sb-health-'));
const home = join(root, 'home');
const here = join(root, 'here');
const later = join(root, 'later', 'deeper');
let core: Core;

const row = (name: string): TargetInfo => {
  const t = core.listTargets().find((x) => x.name === name);
  if (!t) throw new Error(`no target ${name}`);
  return t;
};

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(here, { recursive: true });
  const port = await freePort();
  const key = join(root, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'terminal:',
      '  default_target: here',
      '  targets:',
      `    here: { backend: local, cwd: ${here} }`,
      `    nowhere: { backend: local, cwd: ${later} }`,
      `    dead: { backend: ssh, ssh_host: 127.0.0.1, ssh_port: ${port}, ssh_user: nobody, ssh_key: ${key} }`,
      '',
    ].join('\n'),
  );
  core = await new Core({ home, healthTiming: { reachableMs: 300, retryMinMs: 200, retryMaxMs: 400 } }).start();
});
afterAll(async () => {
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

describe('target health', () => {
  it('a dead SSH port shows unreachable with the reason before anything used it', async () => {
    await vi.waitFor(() => expect(row('dead').health?.status).toBe('unreachable'), { timeout: 20_000 });
    const t = row('dead');
    expect(t.state).toBe('unreachable');
    expect(t.problem).toMatch(/refused|unreachable|connect/i);
    expect(t.health?.checked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('a reachable target says so, with when it was checked', async () => {
    await vi.waitFor(() => expect(row('here').health?.status).toBe('reachable'), { timeout: 20_000 });
    expect(row('here').state).toBe('active');
    expect(row('here').cwd_problem).toBeUndefined();
  });

  it(
    'a cwd that does not exist is flagged with where work starts ' + 'instead, and the flag goes once it exists',
    async () => {
      await vi.waitFor(() => expect(row('nowhere').cwd_problem).toBeDefined(), { timeout: 20_000 });
      expect(row('nowhere').cwd_problem).toBe(
        `cwd ${later} does not exist on nowhere; commands and panes start in ${root}`,
      );
      // Still usable: the target is reachable, and a command runs in the parent that exists.
      expect(row('nowhere').health?.status).toBe('reachable');
      const r = await core.callTool('terminal', { command: 'pwd', execution_target: 'nowhere' }, 'test');
      expect(r).toMatchObject({ exit_code: 0 });
      mkdirSync(later, { recursive: true });
      await vi.waitFor(() => expect(row('nowhere').cwd_problem).toBeUndefined(), { timeout: 20_000 });
    },
  );

  it(
    'a failure a call reported turns the row red at once, ' + 'and the next probe that gets through clears it',
    async () => {
      const t = row('here');
      const identity = `${t.name}#${t.generation}`;
      // The environment must exist for its reports to count, as it does once a call ran there.
      await core.callTool('terminal', { command: 'true', execution_target: 'here' }, 'test');
      core.providerContext.reportReachability?.(identity, 'the link went down');
      expect(row('here')).toMatchObject({
        state: 'unreachable',
        problem: 'the link went down',
        health: { status: 'unreachable' },
      });
      await vi.waitFor(() => expect(row('here')).toMatchObject({ state: 'active', health: { status: 'reachable' } }), {
        timeout: 20_000,
      });
      expect(row('here').problem).toBeUndefined();
    },
  );

  it('a doctor run counts as a check: its answers reach the rows', async () => {
    const before = row('dead').health?.checked_at ?? '';
    const report = (await core.invoke('doctor.run', { timeout_ms: 5000 })) as {
      targets: Array<{ name: string; ok: boolean }>;
    };
    expect(report.targets.find((x) => x.name === 'dead')?.ok).toBe(false);
    expect((row('dead').health?.checked_at ?? '') >= before).toBe(true);
    expect(row('dead').health?.status).toBe('unreachable');
  });
});
