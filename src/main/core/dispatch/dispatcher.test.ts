import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SwitchboardError } from '../../../shared/errors.js';
import type { RuntimeRecord, RuntimeSource } from '../registry/index.js';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { listTargetsTool, readFileTool, searchFilesTool, writeFileTool } from '../tools/index.js';
import { assertSameTarget, parseArgs } from './dispatcher.js';
import { asPerson } from '../platform/index.js';

/** A runtime registry held in memory: a draining target, and one the test removes. */
function memoryRuntime(dir: string): RuntimeSource & { records: RuntimeRecord[] } {
  const now = new Date().toISOString();
  const rec = (name: string, state: 'active' | 'draining', generation: string): RuntimeRecord => ({
    name,
    state,
    generation,
    spec: { backend: 'local', cwd: dir },
    provider: 'test',
    owner_id: 'o',
    created_at: now,
    updated_at: now,
  });
  const records = [rec('old', 'draining', 'g1'), rec('gone', 'active', 'g7')];
  return {
    records,
    list: () => [...records],
    problems: () => [],
    refresh: () => false,
    onChange: () => () => undefined,
    close: () => undefined,
  };
}

let t: TestCore;
let runtime: ReturnType<typeof memoryRuntime>;
beforeAll(async () => {
  t = await makeTestCore(['a', 'b'], { runtime: (home) => (runtime = memoryRuntime(home)) });
});
afterAll(async () => t?.close());

async function outcome(
  tool: string,
  args: Record<string, unknown>,
): Promise<{ code: string; message: string; hint?: string } | { ok: Record<string, unknown> }> {
  try {
    return { ok: await t.core.callTool(tool, args, 'test') };
  } catch (err) {
    const e = err as SwitchboardError;
    return { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) };
  }
}

describe('dispatcher rules', () => {
  const table: Array<{
    name: string;
    tool: string;
    args: Record<string, unknown>;
    code?: string;
    message?: RegExp;
    hint?: RegExp;
    target?: string;
  }> = [
    {
      name: 'unknown tool, with a guess',
      tool: 'terminl',
      args: { command: 'true' },
      code: 'unknown_tool',
      message: /unknown tool "terminl" — did you mean "terminal"/,
    },
    {
      name: 'unknown target, with a guess',
      tool: 'terminal',
      args: { command: 'true', execution_target: 'bb' },
      code: 'unknown_target',
      message: /unknown target "bb"/,
      hint: /known targets: a, b/,
    },
    {
      name: 'draining target refuses new work',
      tool: 'terminal',
      args: { command: 'true', execution_target: 'old' },
      code: 'target_draining',
      message: /"old" is draining/,
    },
    {
      name: 'draining target refuses file tools',
      tool: 'write_file',
      args: { path: 'x', content: '', execution_target: 'old' },
      code: 'target_draining',
    },
    {
      name: 'draining target still answers process',
      tool: 'process',
      args: { action: 'list', execution_target: 'old' },
      target: 'old',
    },
    { name: 'process without a target resolves none', tool: 'process', args: { action: 'list' }, target: undefined },
    { name: 'list_targets is targetless', tool: 'list_targets', args: {}, target: undefined },
    { name: 'missing argument', tool: 'terminal', args: {}, code: 'bad_request', message: /terminal: command/ },
    {
      name: 'wrong type',
      tool: 'read_file',
      args: { path: 'x', offset: 'one' },
      code: 'bad_request',
      message: /offset/,
    },
    {
      name: 'unknown argument',
      tool: 'write_file',
      args: { path: 'x', content: '', bogus: 1 },
      code: 'bad_request',
      message: /bogus/,
    },
    {
      name: 'old routing key `target` is refused with a hint',
      tool: 'terminal',
      args: { command: 'true', target: 'b' },
      code: 'bad_request',
      message: /"target" is not an argument of terminal/,
      hint: /execution_target/,
    },
    {
      name: '`target` on execute_code too',
      tool: 'execute_code',
      args: { code: 'pass', target: 'b' },
      code: 'bad_request',
      hint: /execution_target/,
    },
    {
      name: 'search_files.target is the search mode',
      tool: 'search_files',
      args: { pattern: 'x', target: 'files' },
      target: 'a',
    },
    {
      name: 'search_files mode must be content|files',
      tool: 'search_files',
      args: { pattern: 'x', target: 'b' },
      code: 'bad_request',
      message: /target/,
    },
    { name: 'default target when none is named', tool: 'terminal', args: { command: 'true' }, target: 'a' },
    {
      name: 'named target runs there',
      tool: 'terminal',
      args: { command: 'true', execution_target: 'b' },
      target: 'b',
    },
  ];
  for (const row of table) {
    it(row.name, async () => {
      const out = await outcome(row.tool, row.args);
      if (row.code) {
        expect(out).toMatchObject({ code: row.code });
        const e = out as { message: string; hint?: string };
        if (row.message) expect(e.message).toMatch(row.message);
        if (row.hint) expect(e.hint).toMatch(row.hint);
        expect(e.message).not.toMatch(/\n/);
      } else {
        expect(out).toHaveProperty('ok');
        const r = (out as { ok: Record<string, unknown> }).ok;
        expect(r.execution_target).toBe(row.target);
        // A targetless call names no place rather than an empty one.
        expect(typeof r.generation).toBe(row.target === undefined ? 'undefined' : 'string');
      }
    });
  }

  it('every result carries execution_target and generation of the snapshot', async () => {
    const r = await t.core.callTool('terminal', { command: 'echo hi', execution_target: 'b' }, 'test');
    const info = t.core.listTargets().find((x) => x.name === 'b')!;
    expect(r).toMatchObject({ execution_target: 'b', generation: info.generation, output: 'hi\n' });
  });

  it('process still finds a removed target by name (no unknown_target when it has processes)', async () => {
    const bg = await t.core.callTool(
      'terminal',
      { command: 'sleep 30', background: true, execution_target: 'gone' },
      'test',
    );
    runtime.records.splice(
      runtime.records.findIndex((r) => r.name === 'gone'),
      1,
    );
    await expect(
      t.core.callTool('terminal', { command: 'true', execution_target: 'gone' }, 'test'),
    ).rejects.toMatchObject({ code: 'unknown_target' });
    const list = await t.core.callTool('process', { action: 'list', execution_target: 'gone' }, 'test');
    expect((list.processes as Array<{ session_id: string }>).map((p) => p.session_id)).toEqual([bg.session_id]);
    const killed = await t.core.callTool(
      'process',
      { action: 'kill', session_id: bg.session_id as string, execution_target: 'gone' },
      'test',
    );
    expect(killed).toMatchObject({ status: 'killed', execution_target: 'gone', generation: 'g7' });
    await expect(
      t.core.callTool('process', { action: 'list', execution_target: 'never' }, 'test'),
    ).rejects.toMatchObject({ code: 'unknown_target' });
  });

  it(
    'writes one audit line per call: time, client, tool, target, generation, args summary without secrets, ' +
      'outcome, duration',
    async () => {
      await t.core.callTool('terminal', { command: 'echo API_TOKEN=supersecret123', execution_target: 'b' }, 'cli');
      await outcome('terminal', { command: 'true', execution_target: 'nope' });
      await t.core.audit.flush();
      const lines = readFileSync(join(t.home, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const ok = lines.find((l) => String(l.args).includes('API_TOKEN'))!;
      expect(ok).toMatchObject({
        kind: 'dispatch',
        client: 'cli',
        tool: 'terminal',
        execution_target: 'b',
        outcome: 'ok',
      });
      expect(typeof ok.time).toBe('string');
      expect(typeof ok.generation).toBe('string');
      expect(typeof ok.duration_ms).toBe('number');
      expect(JSON.stringify(lines)).not.toContain('supersecret123');
      const bad = lines[lines.length - 1]!;
      expect(bad).toMatchObject({ outcome: 'error', tool: 'terminal' });
      expect(String(bad.error)).toMatch(/unknown target "nope"/);
    },
  );
});

describe('authorization binding: a guard cannot retarget a call', () => {
  const attempts: Array<{
    name: string;
    requested: string | undefined;
    change: (args: Record<string, unknown>) => Record<string, unknown>;
  }> = [
    { name: 'adds execution_target', requested: undefined, change: (a) => ({ ...a, execution_target: 'b' }) },
    { name: 'changes execution_target', requested: 'a', change: (a) => ({ ...a, execution_target: 'b' }) },
    {
      name: 'removes execution_target',
      requested: 'b',
      change: (a) => {
        const { execution_target: _drop, ...rest } = a;
        return rest;
      },
    },
  ];
  for (const at of attempts) {
    it(`refuses a guard that ${at.name}`, async () => {
      const x = await makeTestCore(['a', 'b']);
      try {
        let ran = false;
        x.core.dispatcher.addGuard(async (req) => ({ args: at.change({ ...req.args }) }));
        x.core.dispatcher.register({
          ...writeFileTool,
          handler: async () => {
            ran = true;
            return {};
          },
        });
        const args: Record<string, unknown> = { path: 'f', content: 'c' };
        if (at.requested) args.execution_target = at.requested;
        await expect(x.core.callTool('write_file', args, 'test')).rejects.toMatchObject({
          code: 'not_permitted',
          message: expect.stringMatching(/change execution_target after authorization/),
        });
        expect(ran).toBe(false);
      } finally {
        await x.close();
      }
    });
  }

  it('lets a guard change other arguments (re-parsed by the schema)', async () => {
    const x = await makeTestCore(['a', 'b']);
    try {
      x.core.dispatcher.addGuard(async (req) =>
        req.tool === 'terminal' ? { args: { ...req.args, command: 'echo rewritten' } } : undefined,
      );
      const r = await x.core.callTool('terminal', { command: 'echo original', execution_target: 'b' }, 'test');
      expect(r).toMatchObject({ output: 'rewritten\n', execution_target: 'b' });
      x.core.dispatcher.addGuard(async (req) => ({ args: { ...req.args, timeout: 'soon' } }));
      await expect(
        x.core.callTool('terminal', { command: 'true', execution_target: 'b' }, 'test'),
      ).rejects.toMatchObject({ code: 'bad_request' });
    } finally {
      await x.close();
    }
  });

  it('assertSameTarget table', () => {
    const rows: Array<[Record<string, unknown>, Record<string, unknown>, boolean]> = [
      [{}, {}, true],
      [{ execution_target: 'a' }, { execution_target: 'a' }, true],
      [{ execution_target: undefined }, {}, true],
      [{}, { execution_target: 'a' }, false],
      [{ execution_target: 'a' }, { execution_target: 'b' }, false],
      [{ execution_target: 'a' }, {}, false],
      [{ execution_target: 'a' }, { execution_target: undefined }, false],
    ];
    for (const [before, after, ok] of rows) {
      if (ok) expect(() => assertSameTarget(before, after)).not.toThrow();
      else expect(() => assertSameTarget(before, after)).toThrow(/after authorization/);
    }
  });

  it('parseArgs keeps search_files.target and refuses it elsewhere', () => {
    expect(parseArgs(searchFilesTool, { pattern: 'x', target: 'content' })).toMatchObject({ target: 'content' });
    expect(() => parseArgs(readFileTool, { path: 'x', target: 'a' })).toThrow(
      expect.objectContaining({ code: 'bad_request', hint: expect.stringMatching(/execution_target/) }),
    );
  });
});

describe('nested calls are pinned', () => {
  it('a nested call that names another target runs on the outer one', async () => {
    const x = await makeTestCore(['a', 'b']);
    try {
      let nested: Record<string, unknown> | undefined;
      x.core.dispatcher.register({
        ...listTargetsTool,
        handler: async (ctx) => {
          nested = await ctx.nested('terminal', { command: 'pwd', execution_target: 'a' });
          return {};
        },
      });
      await x.core.callTool('list_targets', {}, 'test').catch(() => undefined);
      // list_targets is targetless: nested calls need a target.
      expect(nested).toBeUndefined();
      x.core.dispatcher.register({
        ...readFileTool,
        handler: async (ctx) => {
          nested = await ctx.nested('terminal', { command: 'pwd', execution_target: 'a' });
          return {};
        },
      });
      await x.core.callTool('read_file', { path: 'x', execution_target: 'b' }, 'test');
      expect(nested).toMatchObject({ execution_target: 'b', output: `${x.dirs.b}\n` });
      const feed = (await x.core.invoke('activity.list', {}, asPerson)) as Array<{
        client: string;
        execution_target?: string;
        tool: string;
      }>;
      expect(feed.some((e) => e.client === 'execute_code' && e.tool === 'terminal' && e.execution_target === 'b')).toBe(
        true,
      );
    } finally {
      await x.close();
    }
  });
});
