// The shared tool behaviour suite: local, SSH and Docker test files call describeToolsOn with two targets of their
// backend.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../shared/tools.js';

export interface ToolSuiteEnv {
  /** One tool call through the Core's dispatcher (or an MCP client). */
  call(tool: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Two distinct targets of the backend under test; their cwds must differ or be separate machines. */
  targets: [string, string];
  /** Whether python3 exists on the targets (otherwise execute_code must say it is missing). */
  python: boolean;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;

/**
 * Tool behaviour that must hold on every backend. `make` returns undefined to skip (backend fixture missing).
 * All paths are relative and live under one fresh directory per run, so targets may share a filesystem root.
 */
export function describeToolsOn(label: string, make: () => Promise<ToolSuiteEnv | undefined>): void {
  describe(`tools on ${label}`, () => {
    let env: ToolSuiteEnv | undefined;
    const run = `sbt-${randomBytes(4).toString('hex')}`;
    let A = '';
    let B = '';
    const call = (tool: string, args: Row): Promise<ToolResult> => env!.call(tool, args);
    const on = (target: string, tool: string, args: Row): Promise<ToolResult> =>
      call(tool, { ...args, execution_target: target });

    beforeAll(async () => {
      env = await make();
      if (!env) return;
      [A, B] = env.targets;
      for (const t of env.targets) await on(t, 'terminal', { command: `mkdir -p ${run}` });
    });
    afterAll(async () => {
      if (!env) return;
      // Test cleanup: the run folder may already be gone.
      for (const t of env.targets) await on(t, 'terminal', { command: `rm -rf ${run}` }).catch(() => undefined);
      await env.close();
    });
    const test = (name: string, fn: () => Promise<void>, timeout?: number): void => {
      it(
        name,
        async (ctx) => {
          if (!env) return ctx.skip();
          await fn();
        },
        timeout,
      );
    };
    /** execute_code tests; on a target without python3 the same call must fail with one clear error instead. */
    const pyTest = (name: string, fn: () => Promise<void>, timeout?: number): void => {
      it(
        name,
        async (ctx) => {
          if (!env) return ctx.skip();
          if (env.python) return fn();
          const r = await on(B, 'execute_code', { code: 'print(1)' });
          expect(r).toMatchObject({
            execution_target: B,
            error: 'execute_code: python3 is not installed on this target',
          });
          expect(r.exit_code).not.toBe(0);
        },
        timeout,
      );
    };

    test("a cut output is kept whole for read_output, without the wrapper's lines or an exported secret", async () => {
      const expected = Array.from({ length: 20_000 }, (_, i) => `line ${i} of the output\n`).join('');
      const r = await on(A, 'terminal', {
        command:
          'export API_TOKEN=sk-live-abcdefghijklmnop12345678; ' +
          `awk 'BEGIN { for (i = 0; i < 20000; i++) print "line " i " of the output" }'`,
      });
      expect(r).toMatchObject({ execution_target: A, exit_code: 0, truncated: true });
      expect(r.output_id).toMatch(/^[0-9a-f]{32}$/);
      let back = '';
      for (let offset: number | undefined = 0; offset !== undefined; ) {
        const slice = await call('read_output', { output_id: r.output_id, offset, limit: 100_000 });
        expect(slice).toMatchObject({ execution_target: A, total_chars: expected.length });
        back += slice.output as string;
        offset = slice.next_offset as number | undefined;
      }
      expect(back).toBe(expected);
      await on(A, 'terminal', { command: 'unset API_TOKEN' });
    });

    test('the same relative path on two targets holds different content', async () => {
      const path = `${run}/same/marker.txt`;
      const wa = await on(A, 'write_file', { path, content: `marker ${A}\n` });
      const wb = await on(B, 'write_file', { path, content: `marker ${B} (longer)\n` });
      expect(wa).toMatchObject({ execution_target: A, bytes_written: `marker ${A}\n`.length });
      expect(wb).toMatchObject({ execution_target: B, bytes_written: `marker ${B} (longer)\n`.length });
      const ra = await on(A, 'read_file', { path });
      const rb = await on(B, 'read_file', { path });
      expect(ra).toMatchObject({ execution_target: A, content: `     1\tmarker ${A}\n`, total_lines: 1 });
      expect(rb).toMatchObject({ execution_target: B, content: `     1\tmarker ${B} (longer)\n`, total_lines: 1 });
    });

    test("cd on one target leaves the other target's cwd", async () => {
      const before = await on(B, 'terminal', { command: 'pwd' });
      const cd = await on(A, 'terminal', { command: `cd ${run} && pwd` });
      expect(String(cd.cwd)).toMatch(new RegExp(`/${run}$`));
      const again = await on(A, 'terminal', { command: 'pwd' });
      expect(again.output).toBe(`${String(cd.cwd)}\n`);
      const after = await on(B, 'terminal', { command: 'pwd' });
      expect(after.output).toBe(before.output);
      // Relative file paths follow the tracked cwd of A only.
      await on(A, 'write_file', { path: 'in-cwd.txt', content: 'x' });
      expect(await on(A, 'read_file', { path: `in-cwd.txt` })).toMatchObject({ total_lines: 1 });
      await expect(on(B, 'read_file', { path: 'in-cwd.txt' })).rejects.toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(/no such file/),
      });
      await on(A, 'terminal', { command: 'cd ..' });
    });

    test('write_file creates parent directories; read_file pages with offset, limit and next_offset', async () => {
      const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
      const w = await on(A, 'write_file', { path: `${run}/deep/er/file.txt`, content: lines.join('\n') + '\n' });
      expect(w.bytes_written).toBe(lines.join('\n').length + 1);
      const page = await on(A, 'read_file', { path: `${run}/deep/er/file.txt`, offset: 10, limit: 5 });
      expect(page).toMatchObject({ total_lines: 30, offset: 10, lines_returned: 5, next_offset: 15 });
      expect(page.content).toBe(
        ['    10\tline 10', '    11\tline 11', '    12\tline 12', '    13\tline 13', '    14\tline 14', ''].join('\n'),
      );
      const last = await on(A, 'read_file', { path: `${run}/deep/er/file.txt`, offset: 28 });
      expect(last).toMatchObject({ lines_returned: 3 });
      expect(last.next_offset).toBeUndefined();
      await expect(on(A, 'read_file', { path: `${run}/deep` })).rejects.toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(/not a regular file/),
      });
    });

    test('read_file caps one page at ~100 KB and says where to go on', async () => {
      const line = 'y'.repeat(999);
      await on(A, 'write_file', { path: `${run}/big.txt`, content: `${line}\n`.repeat(300) });
      const r = await on(A, 'read_file', { path: `${run}/big.txt` });
      expect(String(r.content).length).toBeLessThanOrEqual(100_000);
      expect(r).toMatchObject({ total_lines: 300, truncated: true });
      expect(r.next_offset).toBe(Number(r.lines_returned) + 1);
    });

    test('read_file counts a last line with no final newline, in a small file and in one sliced there', async () => {
      await on(A, 'write_file', { path: `${run}/nofinal.txt`, content: 'one\ntwo' });
      expect(await on(A, 'read_file', { path: `${run}/nofinal.txt` })).toMatchObject({ total_lines: 2 });
      // Over the 8 MiB read whole: counted and sliced on the target.
      await on(A, 'terminal', {
        command: `yes abcdefghij | head -n 900000 > ${run}/huge.txt; printf tail >> ${run}/huge.txt`,
      });
      const r = await on(A, 'read_file', { path: `${run}/huge.txt`, offset: 899_999 });
      expect(r).toMatchObject({ total_lines: 900_001, lines_returned: 3 });
      expect(r.content).toBe('899999\tabcdefghij\n900000\tabcdefghij\n900001\ttail\n');
      expect(r.next_offset).toBeUndefined();
      await on(A, 'terminal', { command: `rm ${run}/huge.txt` });
    });

    test('patch replaces exactly once, refuses missing and ambiguous text, and replaces all on request', async () => {
      const path = `${run}/patch.txt`;
      await on(B, 'write_file', { path, content: 'alpha\nbeta\nbeta\ngamma\n' });
      expect(await on(B, 'patch', { path, old_string: 'alpha', new_string: 'ALPHA' })).toMatchObject({
        replacements: 1,
        execution_target: B,
      });
      await expect(on(B, 'patch', { path, old_string: 'delta', new_string: 'x' })).rejects.toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(/not found/),
      });
      await expect(on(B, 'patch', { path, old_string: 'beta', new_string: 'x' })).rejects.toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(/occurs 2 times/),
        hint: expect.stringMatching(/replace_all/),
      });
      expect(await on(B, 'patch', { path, old_string: 'beta', new_string: 'BETA', replace_all: true })).toMatchObject({
        replacements: 2,
      });
      expect((await on(B, 'read_file', { path })).content).toBe(
        '     1\tALPHA\n     2\tBETA\n     3\tBETA\n     4\tgamma\n',
      );
      await expect(on(B, 'patch', { path: `${run}/nope.txt`, old_string: 'a', new_string: 'b' })).rejects.toMatchObject(
        { code: 'bad_request' },
      );
    });

    test('search_files: content with regex, context and file_glob; files by glob; limit', async () => {
      await on(A, 'write_file', { path: `${run}/s/one.py`, content: 'import os\ndef f():\n    return 42\n' });
      await on(A, 'write_file', { path: `${run}/s/two.txt`, content: 'return 7\nnothing\n' });
      await on(A, 'write_file', { path: `${run}/s/sub/three.py`, content: 'x = 1\nreturn_value = 3\n' });
      const c = await on(A, 'search_files', { pattern: 'return\\s+\\d+', target: 'content', path: `${run}/s` });
      expect((c.matches as Row[]).map((m) => [String(m.path).split('/').pop(), m.line, m.text]).sort()).toEqual([
        ['one.py', 3, '    return 42'],
        ['two.txt', 1, 'return 7'],
      ]);
      const g = await on(A, 'search_files', {
        pattern: 'return',
        target: 'content',
        path: `${run}/s`,
        file_glob: '*.py',
        context: 1,
      });
      const hits = (g.matches as Row[]).filter((m) => !m.context);
      expect(hits.map((m) => String(m.path).split('/').pop()).sort()).toEqual(['one.py', 'three.py']);
      expect((g.matches as Row[]).some((m) => m.context && m.text === 'def f():')).toBe(true);
      const f = await on(A, 'search_files', { pattern: '*.py', target: 'files', path: `${run}/s` });
      expect((f.files as string[]).map((p) => p.split('/').pop()).sort()).toEqual(['one.py', 'three.py']);
      const lim = await on(A, 'search_files', { pattern: '.', target: 'content', path: `${run}/s`, limit: 2 });
      expect(lim).toMatchObject({ count: 2, truncated: true });
      // Relative to the target's cwd: B has no such tree.
      const none = await on(B, 'search_files', { pattern: 'return', target: 'content', path: run });
      expect(none).toMatchObject({ count: 0, execution_target: B });
    });

    test('a background process on the non-default target: poll, write, wait, list per target, kill', async () => {
      const bg = await on(B, 'terminal', {
        command: 'echo started; read line; echo "got $line"; sleep 60',
        background: true,
      });
      expect(bg).toMatchObject({ execution_target: B, status: 'running' });
      const id = String(bg.session_id);
      expect(id).toMatch(/^proc_/);
      let out = '';
      for (let i = 0; i < 50 && !out.includes('started'); i++) {
        const p = await call('process', { action: 'poll', session_id: id });
        out += String(p.output);
        if (!out.includes('started')) await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toContain('started');
      await call('process', { action: 'write', session_id: id, data: 'hello\n' });
      const w = await call('process', { action: 'wait', session_id: id, timeout: 1 });
      expect(w).toMatchObject({ timed_out: true, status: 'running', execution_target: B });
      expect(String(w.output)).toContain('got hello');
      const listB = await on(B, 'process', { action: 'list' });
      expect((listB.processes as Row[]).some((p) => p.session_id === id)).toBe(true);
      const listA = await on(A, 'process', { action: 'list' });
      expect((listA.processes as Row[]).some((p) => p.session_id === id)).toBe(false);
      await expect(on(A, 'process', { action: 'kill', session_id: id })).rejects.toMatchObject({
        code: 'not_permitted',
      });
      const k = await on(B, 'process', { action: 'kill', session_id: id });
      expect(k).toMatchObject({ status: 'killed', execution_target: B });
      const log = await call('process', { action: 'log', session_id: id });
      expect(log).toMatchObject({ status: 'killed' });
      expect(String(log.output)).toContain('got hello');
    }, 30_000);

    test('a finished background process reports its exit code', async () => {
      const bg = await on(A, 'terminal', { command: 'echo done; exit 3', background: true });
      const w = await call('process', { action: 'wait', session_id: String(bg.session_id), timeout: 20 });
      expect(w).toMatchObject({ status: 'exited', exit_code: 3, timed_out: false });
      expect(String(w.output)).toContain('done');
    }, 30_000);

    pyTest(
      'execute_code on B writes a file that lands on B; nested calls naming A still run on B',
      async () => {
        const code = [
          'import switchboard_tools as sb',
          `w = sb.write_file("${run}/from-script.txt", "written by script")`,
          `t = sb.terminal("cat ${run}/from-script.txt; pwd", execution_target="${A}")`,
          'print(w["execution_target"], t["execution_target"])',
          'print(t["output"])',
        ].join('\n');
        const r = await on(B, 'execute_code', { code });
        expect(r).toMatchObject({ exit_code: 0, execution_target: B, tool_calls: 2 });
        expect(String(r.output)).toContain(`${B} ${B}\n`);
        expect(String(r.output)).toContain('written by script');
        expect(await on(B, 'read_file', { path: `${run}/from-script.txt` })).toMatchObject({
          content: '     1\twritten by script\n',
        });
        await expect(on(A, 'read_file', { path: `${run}/from-script.txt` })).rejects.toMatchObject({
          code: 'bad_request',
        });
      },
      60_000,
    );

    pyTest(
      'execute_code limits: tool calls, time, output; errors reach the script',
      async () => {
        const calls = await on(A, 'execute_code', {
          code: `import switchboard_tools as sb\nfor i in range(60):\n    sb.terminal("true")`,
        });
        expect(calls).toMatchObject({
          tool_calls: 50,
          exit_code: 1,
          error: expect.stringMatching(/limit of 50 tool calls/),
        });
        expect(String(calls.output)).toContain('SwitchboardToolError');
        // 8 s: python must start and print before the limit even on a loaded machine; the sleep outlasts the test.
        const slow = await on(A, 'execute_code', {
          code: 'import time\nprint("before", flush=True)\ntime.sleep(3000)',
          timeout: 8,
        });
        expect(slow).toMatchObject({
          timed_out: true,
          exit_code: 124,
          error: expect.stringMatching(/longer than 8 s/),
        });
        expect(String(slow.output)).toContain('before');
        const big = await on(A, 'execute_code', { code: 'print("z" * 200000)' });
        expect(big).toMatchObject({ truncated: true, exit_code: 0 });
        expect(String(big.output).length).toBeLessThan(51_000);
        const refused = await on(A, 'execute_code', {
          code:
            `import switchboard_tools as sb\ntry:\n    sb.read_file("${run}/missing")\nexcept ` +
            `sb.SwitchboardToolError as e:\n    print("caught:", e)`,
        });
        expect(String(refused.output)).toMatch(/caught: no such file/);
        const stdin = await on(A, 'execute_code', { code: 'import sys\nprint(repr(sys.stdin.read()))\nprint("ok")' });
        expect(stdin.output).toBe("''\nok\n");
      },
      60_000,
    );
  });
}
