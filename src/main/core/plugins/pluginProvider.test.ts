// A plugin backend's flags as the Core holds them: to its manifest, to its flags_for answers (asking until one came),
// and never skipping asking on a spec that names a writable host path.
import { describe, expect, it } from 'vitest';
import type { ProviderDeclaration } from '../../../shared/pluginRpc.js';
import type { ManifestFlags } from '../../../shared/plugins.js';
import type { PluginHost } from './pluginHost.js';
import { heldToManifest, pluginProvider, type PluginBackendLink } from './pluginProvider.js';

const decl = (flags: ProviderDeclaration['flags'], flagsFor = false): ProviderDeclaration => ({
  name: 'box',
  display_name: 'Box',
  fields: [],
  exactly_one: [],
  flags,
  ...(flagsFor ? { flags_for: true } : {}),
});

/** A link whose host answers flags_for with `answer(spec)`, counting the calls. */
function fakeLink(answer: (spec: Record<string, unknown>) => Promise<Record<string, unknown>>) {
  const calls: Array<Record<string, unknown>> = [];
  let changed = 0;
  const logs: string[] = [];
  const host = {
    call: async (_m: string, p: { spec: Record<string, unknown> }) => (calls.push(p.spec), answer(p.spec)),
  } as unknown as PluginHost;
  const link: PluginBackendLink = {
    plugin: 'box',
    host: () => host,
    problem: () => undefined,
    changed: () => void changed++,
    log: (m) => void logs.push(m),
  };
  return { link, calls, logs, changes: () => changed };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('heldToManifest', () => {
  const table: Array<
    [string, ProviderDeclaration['flags'], ManifestFlags | undefined, Partial<Record<string, boolean>>]
  > = [
    [
      'a container whose manifest says so skips asking',
      { is_container: true },
      { is_container: true },
      { skip_container_guards: true, is_container: true },
    ],
    [
      'a container whose manifest is silent asks',
      { is_container: true },
      undefined,
      { skip_container_guards: false, is_container: true },
    ],
    [
      'the manifest may keep asking for a container',
      { is_container: true },
      { is_container: true, skip_container_guards: false },
      { skip_container_guards: false },
    ],
    [
      'a manifest that allows skipping gives nothing the backend did not declare',
      {},
      { skip_container_guards: true },
      { skip_container_guards: false },
    ],
    [
      'shells only when the manifest says so',
      { supports_streams: true, supports_pty: true },
      {},
      { supports_streams: false, supports_pty: false, supports_stdin: false },
    ],
    [
      'shells and a pty as asked',
      { supports_streams: true, supports_pty: true },
      { supports_streams: true, supports_pty: true },
      { supports_streams: true, supports_pty: true, supports_stdin: true },
    ],
    [
      'a pty needs the manifest to ask for it too',
      { supports_streams: true, supports_pty: true },
      { supports_streams: true },
      { supports_streams: true, supports_pty: false },
    ],
  ];
  for (const [name, declared, manifest, expected] of table)
    it(name, () => expect(heldToManifest(declared, manifest)).toMatchObject(expected));
});

describe('pluginProvider flags per spec', () => {
  it('without flags_for: the backend flags, except on a spec naming a writable host path', () => {
    const { link, calls } = fakeLink(async () => ({}));
    const p = pluginProvider(decl({ is_container: true }), link, { is_container: true });
    expect(p.flagsFor!({ backend: 'box' }).skip_container_guards).toBe(true);
    expect(p.flagsFor!({ backend: 'box', share: '/home/me:/w' }).skip_container_guards).toBe(false);
    expect(p.flagsFor!({ backend: 'box', share: '/home/me:/w:ro' }).skip_container_guards).toBe(true);
    expect(calls).toEqual([]);
  });

  it('with flags_for: asks until the plugin answered, once per spec, then follows the answer', async () => {
    const { link, calls, changes } = fakeLink(async (spec) => ({ skip_container_guards: spec.open !== true }));
    const p = pluginProvider(decl({ is_container: true }, true), link, { is_container: true });
    expect(p.flags.skip_container_guards).toBe(true);
    expect(p.flagsFor!({ backend: 'box' }).skip_container_guards).toBe(false);
    expect(p.flagsFor!({ backend: 'box' }).skip_container_guards).toBe(false);
    await tick();
    expect(calls).toHaveLength(1);
    expect(changes()).toBe(1);
    expect(p.flagsFor!({ backend: 'box' }).skip_container_guards).toBe(true);
    // The same spec with its keys in another order is the same spec.
    expect(p.flagsFor!({ open: true, backend: 'box' }).skip_container_guards).toBe(false);
    await tick();
    expect(p.flagsFor!({ backend: 'box', open: true }).skip_container_guards).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('a plugin cannot answer its way past its manifest or a writable host path', async () => {
    const { link } = fakeLink(async () => ({ skip_container_guards: true, supports_streams: true }));
    const p = pluginProvider(decl({}, true), link, {});
    p.flagsFor!({ backend: 'box' });
    await tick();
    expect(p.flagsFor!({ backend: 'box' })).toMatchObject({ skip_container_guards: false, supports_streams: false });
    const q = pluginProvider(
      decl({ is_container: true }, true),
      fakeLink(async () => ({ skip_container_guards: true })).link,
      { is_container: true },
    );
    const bound = { backend: 'box', binds: ['/srv/data:/data'] };
    q.flagsFor!(bound);
    await tick();
    expect(q.flagsFor!(bound).skip_container_guards).toBe(false);
  });

  it('a flags_for that fails leaves the target asking, and says so in the log', async () => {
    const { link, logs } = fakeLink(async () => {
      throw new Error('flags_for blew up');
    });
    const p = pluginProvider(decl({ is_container: true }, true), link, { is_container: true });
    p.flagsFor!({ backend: 'box' });
    await tick();
    expect(p.flagsFor!({ backend: 'box' }).skip_container_guards).toBe(false);
    expect(logs).toEqual(['flags_for failed for backend box: flags_for blew up']);
  });
});
