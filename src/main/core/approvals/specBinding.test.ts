// Approvals are bound to the spec a target had when a person approved: a session or always approval does not carry to
// a target registered again (same name, same generation or not) with another spec, nor to a config target edited.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalRule } from '../../../shared/approvals.js';
import type { Core } from '../core.js';
import { Registry } from '../registry/index.js';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { asPerson } from '../platform/index.js';

// The shells these tests start get a HOME of their own.
const savedHome = process.env.HOME;
const ownHome = mkdtempSync(join(tmpdir(), 'sb-spec-binding-home-'));
beforeAll(() => {
  process.env.HOME = ownHome;
});
afterAll(() => {
  process.env.HOME = savedHome;
  rmSync(ownHome, { recursive: true, force: true });
});

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function core(): Promise<TestCore> {
  t = await makeTestCore(['a', 'b'], {
    extra: 'approvals:\n  mode: ask\n  timeout: 600\n',
    runtime: (home) => new Registry(home, { configNames: () => ['a', 'b'] }),
  });
  return t;
}

/** Make a call that needs approval: 'asked' (the request is then answered with `answer`), or 'ran' unasked. */
async function run(c: Core, target: string, answer: 'session' | 'always' | 'deny' = 'deny'): Promise<'asked' | 'ran'> {
  let settled = false;
  const call = c
    .callTool('terminal', { command: 'sudo true', execution_target: target }, 'mcp')
    .catch(() => undefined)
    .finally(() => (settled = true));
  for (;;) {
    const p = c.approvals.list()[0];
    if (p) {
      c.approvals.decide(
        answer === 'deny' ? { id: p.id, decision: 'deny' } : { id: p.id, decision: 'approve', scope: answer },
        'ui',
      );
      await call;
      return 'asked';
    }
    if (settled) return 'ran';
    await new Promise((r) => setTimeout(r, 10));
  }
}

const owner = { provider: 'ctl', owner_id: 'o1' };

describe('approvals are bound to the spec a target had', () => {
  it(
    'a session approval does not carry to the same generation ' + 'with another spec (a registry edited by hand)',
    async () => {
      const c = await core();
      const registry = c.core.runtime as Registry;
      await registry.register({ name: 'rt', spec: { backend: 'local', cwd: c.dirs.a }, generation: 'g1', ...owner });
      expect(await run(c.core, 'rt', 'session')).toBe('asked');
      expect(await run(c.core, 'rt')).toBe('ran');
      // The registry refuses g1 with another spec; the file is rewritten behind its back instead.
      const file = join(c.home, 'runtime-targets.json');
      writeFileSync(file, readFileSync(file, 'utf8').replace(JSON.stringify(c.dirs.a), JSON.stringify(c.dirs.b)), {
        mode: 0o600,
      });
      c.core.targets.refresh();
      expect(c.core.targets.snapshot('rt')).toMatchObject({ identity: 'rt#g1', spec: { cwd: c.dirs.b } });
      expect(await run(c.core, 'rt')).toBe('asked');
    },
  );

  it(
    'registering a removed generation again with another spec is refused; ' +
      'with its own spec its session approval holds again',
    async () => {
      const c = await core();
      const registry = c.core.runtime as Registry;
      await registry.register({ name: 'rt', spec: { backend: 'local', cwd: c.dirs.a }, generation: 'g1', ...owner });
      expect(await run(c.core, 'rt', 'session')).toBe('asked');
      await registry.remove({ name: 'rt', ...owner });
      await expect(
        registry.register({ name: 'rt', spec: { backend: 'local', cwd: c.dirs.b }, generation: 'g1', ...owner }),
      ).rejects.toMatchObject({ code: 'registry_conflict' });
      expect(() => c.core.targets.snapshot('rt')).toThrow(/unknown target/);
      await registry.register({ name: 'rt', spec: { backend: 'local', cwd: c.dirs.a }, generation: 'g1', ...owner });
      expect(await run(c.core, 'rt')).toBe('ran');
    },
  );

  it(
    'an always rule follows a runtime target to a new generation with the same spec, ' +
      'stops at another spec and shows stale',
    async () => {
      const c = await core();
      const registry = c.core.runtime as Registry;
      await registry.register({ name: 'rt', spec: { backend: 'local', cwd: c.dirs.a }, generation: 'g1', ...owner });
      expect(await run(c.core, 'rt', 'always')).toBe('asked');
      const rules = (await c.core.invoke('approvals.rules', {}, asPerson)) as ApprovalRule[];
      expect(rules).toEqual([
        expect.objectContaining({
          execution_target: 'rt',
          spec_fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          stale: false,
        }),
      ]);
      await registry.register({
        name: 'rt',
        spec: { backend: 'local', cwd: c.dirs.a },
        generation: 'g2',
        replace: true,
        ...owner,
      });
      expect(await run(c.core, 'rt')).toBe('ran');
      await registry.register({
        name: 'rt',
        spec: { backend: 'local', cwd: c.dirs.b },
        generation: 'g3',
        replace: true,
        ...owner,
      });
      expect(await c.core.invoke('approvals.rules', {}, asPerson)).toEqual([
        expect.objectContaining({ id: rules[0]!.id, stale: true }),
      ]);
      expect(await run(c.core, 'rt')).toBe('asked');
    },
  );

  it('an always rule stops matching when its config target is edited, and the window is told it is stale', async () => {
    const c = await core();
    expect(await run(c.core, 'a', 'always')).toBe('asked');
    expect(await run(c.core, 'a')).toBe('ran');
    const told: boolean[] = [];
    c.core.approvalRules.onChange((rules) => told.push(rules[0]?.stale ?? false));
    const cfg = join(c.home, 'config.yaml');
    writeFileSync(
      cfg,
      readFileSync(cfg, 'utf8').replace(
        `a: { backend: local, cwd: ${c.dirs.a} }`,
        `a: { backend: local, cwd: ${c.dirs.b} }`,
      ),
    );
    expect(await run(c.core, 'a')).toBe('asked');
    expect(told).toContain(true);
    expect(await c.core.invoke('approvals.rules', {}, asPerson)).toEqual([
      expect.objectContaining({ execution_target: 'a', stale: true }),
    ]);
  });
});
