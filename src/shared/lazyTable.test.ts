// lazyTable builds each entry on its first read, once, and otherwise reads as the plain object; the API tables built
// with it accept what they did.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lazyTable } from './lazyTable.js';
import { ActivityEntry, coreEvents, coreMethods, isCoreEvent, isCoreMethod } from './api.js';
import { ApprovalDecision } from './approvals.js';
import { PluginManifest } from './plugins.js';
import { TargetInfo } from './targets.js';

describe('lazyTable', () => {
  it('builds an entry on its first read only, and keeps it', () => {
    const built: string[] = [];
    const table = lazyTable({
      a: () => (built.push('a'), { n: 1 }),
      b: () => (built.push('b'), { n: 2 }),
    });
    expect(Object.keys(table)).toEqual(['a', 'b']);
    expect('a' in table && Object.hasOwn(table, 'b')).toBe(true);
    expect(built).toEqual([]);
    const first = table.a;
    expect(table.a).toBe(first);
    expect(built).toEqual(['a']);
    expect(table.b.n).toBe(2);
    expect(built).toEqual(['a', 'b']);
  });

  it('an entry cannot be replaced once built', () => {
    const table = lazyTable({ a: () => 1 });
    expect(table.a).toBe(1);
    expect(() => Object.assign(table, { a: 2 })).toThrow(TypeError);
  });
});

describe('the API tables, built lazily', () => {
  it('hold every method and event with zod schemas', () => {
    expect(Object.keys(coreMethods).length).toBeGreaterThan(30);
    for (const name of Object.keys(coreMethods)) {
      expect(isCoreMethod(name)).toBe(true);
      const m = coreMethods[name as keyof typeof coreMethods];
      expect(m.input).toBeInstanceOf(z.ZodType);
      expect(m.output).toBeInstanceOf(z.ZodType);
    }
    for (const name of Object.keys(coreEvents)) {
      expect(isCoreEvent(name)).toBe(true);
      expect(coreEvents[name as keyof typeof coreEvents]).toBeInstanceOf(z.ZodType);
    }
    expect(isCoreMethod('toString')).toBe(false);
  });

  it('accept and refuse what they did', () => {
    expect(
      coreMethods['tool.call'].input.safeParse({ tool: 'terminal', args: { command: 'true' }, client: 'cli' }).success,
    ).toBe(true);
    expect(coreMethods['tool.call'].input.safeParse({ tool: 'some_plugin_tool', args: {} }).success).toBe(true);
    expect(coreMethods['tool.call'].input.safeParse({ tool: 'terminal', args: [] }).success).toBe(false);
    expect(coreMethods['tool.call'].output.parse({ execution_target: 'local', output: 'x', exit_code: 0 })).toEqual({
      execution_target: 'local',
      output: 'x',
      exit_code: 0,
    });
    expect(coreMethods['pane.open'].input.safeParse({ execution_target: 'local', cols: 1, rows: 10 }).success).toBe(
      false,
    );
    expect(coreMethods['pane.write'].input.safeParse({ pane_id: 'p', data: 'x'.repeat(1_000_001) }).success).toBe(
      false,
    );
    expect(
      coreMethods['workspace.save'].input.safeParse({
        tabs: [{ panes: [{ target: 'local' }], split: { dir: 'right', ratio: 0.5, a: 0, b: 1 } }],
        active_tab: 0,
      }).success,
    ).toBe(true);
    expect(coreEvents['pane.data'].safeParse({ pane_id: 'p', data: new Uint8Array([104]), chars: 1 }).success).toBe(
      true,
    );
    expect(coreEvents['pane.exit'].safeParse({ pane_id: 'p', exit_code: 'x' }).success).toBe(false);
  });
});

describe('schemas built on first use (z.lazy)', () => {
  it('accept and refuse what they did, with the same messages', () => {
    const manifest = { name: 'box', version: '1.0.0', kind: 'backend', entry: 'index.js' };
    expect(PluginManifest.parse(manifest)).toEqual(manifest);
    const extra = PluginManifest.safeParse({ ...manifest, surprise: 1 });
    expect(extra.success).toBe(false);
    expect(extra.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['surprise'] });
    expect(ApprovalDecision.safeParse({ id: 'a1', decision: 'approve', scope: 'session' }).success).toBe(true);
    expect(ApprovalDecision.safeParse({ id: 'a1', decision: 'maybe' }).error?.issues[0]?.path).toEqual(['decision']);
    const target = {
      name: 'box',
      generation: 'g1',
      source: 'runtime',
      state: 'active',
      backend: 'ssh',
      spec: { ssh_host: 'h' },
      is_default: false,
      health: { status: 'reachable' },
    };
    expect(TargetInfo.parse(target)).toEqual(target);
    expect(TargetInfo.safeParse({ ...target, state: 'asleep' }).success).toBe(false);
    // An optional lazy field inside an object may be left out, as before.
    const entry = { id: '1', time: 't', client: 'cli', tool: 'terminal', summary: 'true', status: 'ok' };
    expect(ActivityEntry.parse(entry)).toEqual(entry);
    expect(ActivityEntry.safeParse({ ...entry, approval: 'yes' }).success).toBe(false);
  });
});
