import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../core.js';
import { builtinProviders } from './builtins.js';
import { builtinSpecs } from './builtinSpecs.js';

describe('built-in backends', () => {
  it('one list: each provider is its declaration (spec, flags, display name) plus a factory', () => {
    expect(builtinProviders.map((p) => p.backend)).toEqual(builtinSpecs.map((s) => s.backend));
    builtinSpecs.forEach((spec, i) => {
      const provider = builtinProviders[i]!;
      for (const [key, value] of Object.entries(spec))
        expect(provider[key as keyof typeof provider], `${spec.backend}.${key}`).toBe(value);
      // Besides the factory, only the run-time hooks a backend may add (what a crashed run left, orphans, the idle
      // health look that creates nothing).
      const hooks = ['afterCrashedRuns', 'orphans', 'idleProbe'];
      expect(Object.keys(provider).filter((k) => !(k in spec) && !hooks.includes(k))).toEqual(['createEnvironment']);
    });
  });

  it('a backend declares each flag once', () => {
    for (const p of builtinProviders) {
      const flags = p.fields.filter((f) => f.flag).map((f) => f.flag!);
      expect(new Set(flags).size, p.backend).toBe(flags.length);
    }
  });

  it('backends.list serves the declarations: flags, fields, exactly-one groups', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sb-backends-'));
    const core = new Core({ home });
    try {
      const list = (await core.invoke('backends.list', {})) as Array<{
        backend: string;
        fields: Array<{ key: string; label: string; flag?: string }>;
        exactly_one: string[][];
      }>;
      expect(list.map((b) => b.backend)).toEqual(builtinProviders.map((p) => p.backend));
      const ssh = list.find((b) => b.backend === 'ssh')!;
      expect(ssh.fields.find((f) => f.key === 'ssh_host')).toMatchObject({
        label: 'Host',
        flag: '--host',
        required: true,
      });
      expect(ssh.fields.find((f) => f.key === 'cwd')).toMatchObject({ label: 'Working directory', flag: '--cwd' });
      expect(list.find((b) => b.backend === 'docker')!.exactly_one).toEqual([['docker_image', 'docker_container']]);
    } finally {
      await core.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
