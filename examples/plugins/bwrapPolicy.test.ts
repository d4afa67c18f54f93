// The bwrap example through a real Core: its is_container flag skips asking for a dangerous command while a hardline
// one is refused, except on a target that binds a host folder; its sandbox hides the profile and keeps each target's
// workspace to itself.
import { mkdirSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PluginInfo } from '../../src/shared/plugins.js';
import type { BackendInfo } from '../../src/shared/specFields.js';
import { exampleCore, type ExampleCore } from './examplesHarness.js';
import { asPerson } from '../../src/main/core/platform/handlers.js';

let ex: ExampleCore;
let work: string;

const term = (target: string, command: string) =>
  ex.core.callTool('terminal', { command, execution_target: target }, 'test') as Promise<{
    output: string;
    exit_code: number;
    cwd: string;
  }>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sb-bwrap-policy-'));
  ex = await exampleCore(
    ['bwrap'],
    [
      'approvals:',
      '  mode: ask',
      '  timeout: 2',
      'terminal:',
      '  default_target: sandbox',
      '  targets:',
      '    sandbox: { backend: bwrap }',
      '    other: { backend: bwrap }',
      `    bound: { backend: bwrap, binds: [${JSON.stringify(`${work}:/project`)}] }`,
      `    host: { backend: local, cwd: ${JSON.stringify(work)} }`,
      '',
    ].join('\n'),
  );
}, 60_000);

afterAll(async () => {
  await ex?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('bwrap plugin through the Core', () => {
  it('is listed as an active plugin with its backend, display name and container flags', async () => {
    const plugins = (await ex.core.invoke('plugins.list', {}, asPerson)) as PluginInfo[];
    expect(plugins.find((p) => p.name === 'bwrap')).toMatchObject({
      state: 'active',
      enabled: true,
      backends: ['bwrap'],
      version: '1.0.0',
    });
    const backends = (await ex.core.invoke('backends.list', {})) as BackendInfo[];
    expect(backends.find((b) => b.backend === 'bwrap')).toMatchObject({
      plugin: 'bwrap',
      display_name: 'Bubblewrap sandbox',
      flags: {
        is_container: true,
        skip_container_guards: true,
        supports_streams: true,
        supports_pty: true,
        is_remote: false,
      },
    });
  });

  it('runs a dangerous command without asking, refuses a hardline one; the same command on the host asks', async () => {
    // Its flags_for answers per spec; until it has, the target asks (the Core asks it as soon as it lists the target).
    await expect
      .poll(() => ex.core.listTargets().find((t) => t.name === 'sandbox')?.flags?.skip_container_guards, {
        timeout: 10_000,
      })
      .toBe(true);
    const r = await term('sandbox', 'mkdir -p junk/deep && rm -rf junk && echo gone');
    expect(r).toMatchObject({ exit_code: 0, output: 'gone\n', cwd: '/workspace' });
    expect(ex.core.approvals.list()).toEqual([]);
    await expect(term('sandbox', 'rm -rf /')).rejects.toThrow(/never run, in any approvals mode/);
    mkdirSync(join(work, 'junk'));
    const asked = term('host', `rm -rf ${join(work, 'junk')}`);
    await expect.poll(() => ex.core.approvals.list().length, { timeout: 30_000 }).toBe(1);
    await expect(asked).rejects.toThrow(/denied|no answer|timed out/i);
    expect(existsSync(join(work, 'junk'))).toBe(true);
  });

  it('asks before a dangerous command on a target that binds a host folder read-write', async () => {
    const flags = () => ex.core.listTargets().find((t) => t.name === 'bound')?.flags;
    await expect.poll(() => flags()?.skip_container_guards, { timeout: 10_000 }).toBe(false);
    mkdirSync(join(work, 'bound-junk'), { recursive: true });
    const asked = term('bound', 'rm -rf /project/bound-junk');
    await expect.poll(() => ex.core.approvals.list().length, { timeout: 30_000 }).toBe(1);
    await expect(asked).rejects.toThrow(/denied|no answer|timed out/i);
    expect(existsSync(join(work, 'bound-junk'))).toBe(true);
  });

  it('keeps cwd and exports per target, hides the profile, and gives each target its own workspace', async () => {
    await term('sandbox', 'mkdir -p src && cd src && export SB_POLICY=kept && echo mine > /workspace/note');
    expect((await term('sandbox', 'pwd; echo "$SB_POLICY"')).output).toBe('/workspace/src\nkept\n');
    expect((await term('other', 'pwd; cat /workspace/note 2>&1 || true; echo "[$SB_POLICY]"')).output).toMatch(
      /^\/workspace\n.*No such file.*\n\[\]\n$/s,
    );
    expect((await term('sandbox', `ls -A ${ex.home} 2>/dev/null | wc -l`)).output.trim()).toBe('0');
  });

  it('opens no network', async () => {
    expect((await term('sandbox', 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "')).output).toBe('lo\n');
  });
});
