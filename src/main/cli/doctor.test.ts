// `switchboard doctor` end to end: it asks a running Core, and without one says so in one line and only reads the
// files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, runCli, startServe, tempHome } from '../../../scripts/cliHarness.js';
import { NO_CORE_LINE } from './commands/doctor.js';

describe('switchboard doctor', () => {
  const home = tempHome('sb-doctor-');
  const work = join(home, 'work');

  beforeAll(() => {
    ensureBuilt();
    mkdirSync(work);
    // An SSH target nobody can reach: a doctor that built its own Core would probe it and report FAIL.
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  targets:',
        `    here: { backend: local, cwd: ${work} }`,
        '    far: { backend: ssh, ssh_host: 192.0.2.1, ssh_user: nobody }',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('without a Core: one line that says so, no probing, exit 0', async () => {
    const r = await runCli(home, ['doctor', '--timeout', '1']);
    expect(r).toEqual({ status: 0, stdout: `${NO_CORE_LINE}\n`, stderr: '' });
    const j = await runCli(home, ['doctor', '--json']);
    expect(JSON.parse(j.stdout)).toEqual({ core: 'not running', home, problems: [] });
  });

  it('without a Core: registry problems read from the file, exit 1', async () => {
    writeFileSync(join(home, 'runtime-targets.json'), '{"version":1,"targets":{', { mode: 0o600 });
    try {
      const r = await runCli(home, ['doctor']);
      expect(r.status).toBe(1);
      const [first, ...rest] = r.stdout.trimEnd().split('\n');
      expect(first).toBe(NO_CORE_LINE);
      expect(rest.length).toBeGreaterThan(0);
      for (const line of rest) expect(line).toMatch(/^problem: .*runtime-targets\.json/);
    } finally {
      rmSync(join(home, 'runtime-targets.json'));
    }
  });

  it("with a Core running: the Core's report", async () => {
    const served = await startServe(home);
    try {
      const r = await runCli(home, ['doctor', '--json', '--timeout', '2']);
      const doc = JSON.parse(r.stdout) as { core: string; targets: Array<{ name: string; ok: boolean }> };
      expect(doc.core).toBe('running');
      expect(Object.fromEntries(doc.targets.map((t) => [t.name, t.ok]))).toEqual({ here: true, far: false });
    } finally {
      await served.stop();
    }
  }, 60_000);
});
