// Reading plugin folders: plugin.yaml, npm packages with a `switchboard` field, broken manifests; enabled state.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedPlugins, offlineSpecSchemas, readEnabled, writeEnabled } from './installedPlugins.js';

const home = mkdtempSync(join(tmpdir(), 'sb-installed-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function folder(name: string, files: Record<string, string>): void {
  const dir = join(home, 'plugins', name);
  mkdirSync(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
}

describe('installed plugins', () => {
  it("reads plugin.yaml, an npm package's switchboard field, and names what is wrong with a broken one", () => {
    folder('yamlish', { 'plugin.yaml': 'name: yamlish\nversion: 0.1.0\nkind: backend\nentry: index.mjs\n' });
    folder('npmish', {
      'package.json': JSON.stringify({
        name: 'npmish',
        version: '3.0.0',
        main: 'lib/main.mjs',
        switchboard: { kind: 'backend' },
      }),
    });
    folder('extra', { 'plugin.yaml': 'name: extra\nversion: 1\nkind: backend\nentry: a.mjs\nmystery: 1\n' });
    folder('nothing', { README: 'hi' });
    folder('.data', { x: '' });
    const list = installedPlugins(home);
    expect(list.map((p) => p.name)).toEqual(['extra', 'nothing', 'npmish', 'yamlish']);
    expect(list.find((p) => p.name === 'npmish')?.manifest).toEqual({
      name: 'npmish',
      version: '3.0.0',
      kind: 'backend',
      entry: 'lib/main.mjs',
    });
    expect(list.find((p) => p.name === 'yamlish')?.manifest?.entry).toBe('index.mjs');
    expect(list.find((p) => p.name === 'extra')?.problem).toMatch(/bad manifest: .*mystery/);
    expect(list.find((p) => p.name === 'nothing')?.problem).toMatch(/no plugin.yaml/);
  });

  it('keeps enabled state and remembered backends in plugins/enabled.json; config readers accept their targets', () => {
    expect(readEnabled(home)).toEqual({ enabled: [], backends: {}, secret_refs: {} });
    writeEnabled(home, { enabled: ['yamlish', 'yamlish'], backends: { yamlish: ['yaml_box'] }, secret_refs: {} });
    expect(readEnabled(home)).toEqual({ enabled: ['yamlish'], backends: { yamlish: ['yaml_box'] }, secret_refs: {} });
    const schemas = offlineSpecSchemas(home, new Map());
    expect(schemas.get('yaml_box')?.safeParse({ backend: 'yaml_box', anything: 1 }).success).toBe(true);
    expect(schemas.has('npmish')).toBe(true);
  });
});
