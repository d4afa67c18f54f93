import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../core.js';
import { defaultCoreOptions } from '../defaults.js';
import { Registry } from './registry.js';
import { asPerson } from '../platform/index.js';

describe('registry methods for the UI', () => {
  const home = mkdtempSync(join(tmpdir(), 'sb-regm-'));
  let core: Core;
  beforeAll(async () => {
    writeFileSync(join(home, 'config.yaml'), 'terminal:\n  targets:\n    local: { backend: local, cwd: /tmp }\n');
    core = await new Core({ ...defaultCoreOptions(), home }).start();
  });
  afterAll(async () => {
    await core.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('registers, drains and removes a runtime target', async () => {
    const r = (await core.invoke(
      'targets.register',
      { name: 'box', spec: { backend: 'local', cwd: '/var' } },
      asPerson,
    )) as { generation: string };
    expect(core.listTargets().find((t) => t.name === 'box')).toMatchObject({
      source: 'runtime',
      state: 'active',
      provider: 'ui',
      generation: r.generation,
    });
    expect(await core.invoke('targets.drain', { name: 'box' }, asPerson)).toMatchObject({ action: 'drained' });
    expect(core.listTargets().find((t) => t.name === 'box')?.state).toBe('draining');
    expect(await core.invoke('targets.remove', { name: 'box' }, asPerson)).toMatchObject({ action: 'removed' });
    expect(core.listTargets().find((t) => t.name === 'box')).toBeUndefined();
  });

  it('refuses to shadow a config target', async () => {
    await expect(
      core.invoke('targets.register', { name: 'local', spec: { backend: 'local' } }, asPerson),
    ).rejects.toThrow(/is a config target/);
  });

  it('lets the person drain a target another program registered', async () => {
    await new Registry(home).register({
      provider: 'ci',
      owner_id: 'job-7',
      name: 'ci-box',
      spec: { backend: 'local' },
    });
    expect(await core.invoke('targets.drain', { name: 'ci-box' }, asPerson)).toMatchObject({ action: 'drained' });
    const rec = core.listTargets().find((t) => t.name === 'ci-box');
    expect(rec).toMatchObject({ provider: 'ci', owner_id: 'job-7', state: 'draining' });
  });
});
