// The allocator setting `npm start` gives the Core (scripts/coreProcessEnv.mjs) is the Core's alone: the Core's
// process starts with it, and the commands it runs do not see it; a person's own setting is theirs and stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callTool, ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';
import { coreProcessEnv, TRIM_THRESHOLD } from '../../../scripts/coreProcessEnv.mjs';

/** What a served Core's process was started with (/proc keeps the environment it began with). */
function startedWith(served: Served): string[] {
  return readFileSync(`/proc/${served.child.pid}/environ`, 'utf8').split('\0');
}

async function commandEnv(home: string): Promise<string> {
  const r = await callTool(home, 'terminal', { command: 'env', execution_target: 'here' });
  return String(r.output);
}

describe('the launcher environment', () => {
  const homes: string[] = [];
  const servers: Served[] = [];
  const profile = (): string => {
    const home = tempHome('sb-launch-');
    homes.push(home);
    mkdirSync(join(home, 'work'));
    writeFileSync(
      join(home, 'config.yaml'),
      `terminal:\n  targets:\n    here: { backend: local, cwd: ${home}/work }\n`,
    );
    return home;
  };
  const serve = async (home: string, env: NodeJS.ProcessEnv, launcher = false): Promise<Served> => {
    const wanted = Object.fromEntries(
      Object.entries(env).filter(([k, v]) => v !== undefined && /^(MALLOC_|SWITCHBOARD_LAUNCHER)/.test(k)),
    ) as Record<string, string>;
    const served = await startServe(home, wanted, launcher);
    servers.push(served);
    return served;
  };

  beforeAll(() => ensureBuilt());
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it("gives the Core's process the trim threshold, and no command sees it", async () => {
    const env = coreProcessEnv({ PATH: process.env.PATH });
    expect(env.MALLOC_TRIM_THRESHOLD_).toBe(TRIM_THRESHOLD);
    const home = profile();
    const served = await serve(home, env);
    expect(startedWith(served)).toContain(`MALLOC_TRIM_THRESHOLD_=${TRIM_THRESHOLD}`);
    const seen = await commandEnv(home);
    expect(seen).toContain('PATH=');
    expect(seen).not.toContain('MALLOC_TRIM_THRESHOLD_');
    expect(seen).not.toContain('SWITCHBOARD_LAUNCHER_MALLOC');
  });

  it('`switchboard serve` through bin/switchboard starts the Core as `npm start` does', async () => {
    // The test's own environment may carry a setting: the launcher is seen without one.
    const { MALLOC_TRIM_THRESHOLD_: _own, SWITCHBOARD_LAUNCHER_MALLOC: _mark, ...inherited } = process.env;
    const saved = { ...process.env };
    process.env = inherited;
    try {
      const home = profile();
      const served = await serve(home, {}, true);
      expect(startedWith(served)).toEqual(
        expect.arrayContaining([`MALLOC_TRIM_THRESHOLD_=${TRIM_THRESHOLD}`, 'SWITCHBOARD_LAUNCHER_MALLOC=1']),
      );
      expect(await commandEnv(home)).not.toContain('MALLOC_TRIM_THRESHOLD_');
      const own = profile();
      const yours = await serve(own, { MALLOC_TRIM_THRESHOLD_: '999999' }, true);
      expect(startedWith(yours)).toContain('MALLOC_TRIM_THRESHOLD_=999999');
      expect(startedWith(yours).some((v) => v.startsWith('SWITCHBOARD_LAUNCHER_MALLOC='))).toBe(false);
    } finally {
      process.env = saved;
    }
  });

  it("keeps a person's own setting, for the Core and for the commands", async () => {
    const env = coreProcessEnv({ PATH: process.env.PATH, MALLOC_TRIM_THRESHOLD_: '999999' });
    expect(env.SWITCHBOARD_LAUNCHER_MALLOC).toBeUndefined();
    const home = profile();
    const served = await serve(home, env);
    expect(startedWith(served)).toContain('MALLOC_TRIM_THRESHOLD_=999999');
    expect(await commandEnv(home)).toContain('MALLOC_TRIM_THRESHOLD_=999999');
  });
});
