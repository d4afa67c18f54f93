import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { Environment } from '../../backends/index.js';
import { localProvider } from '../../backends/providers.js';
import { FrameSplitter, MAX_FRAME_CHARS, runCode } from './codeRunner.js';
import { bootstrapCommand, pythonBootstrap } from './pythonBootstrap.js';
import { toolDefs } from '../toolDefs.js';

const PYTHON_BOOTSTRAP = pythonBootstrap(toolDefs);

function split(chunks: string[], marker = '@@M@@'): { text: string; frames: string[] } {
  let text = '';
  const frames: string[] = [];
  const s = new FrameSplitter(
    marker,
    (t) => (text += t),
    (f) => frames.push(f),
  );
  for (const c of chunks) s.push(c);
  s.end();
  return { text, frames };
}

describe('FrameSplitter', () => {
  const table: Array<[string, string[], string, string[]]> = [
    ['plain text passes through', ['hello\n', 'world'], 'hello\nworld', []],
    ['a frame on its own line', ['a\n@@M@@{"id":1}\nb\n'], 'a\nb\n', ['{"id":1}']],
    ['a frame after a partial line', ['no newline@@M@@{"id":2}\n'], 'no newline', ['{"id":2}']],
    ['a marker split over chunks', ['x@@', 'M', '@@{"id":3', '}\n', 'y'], 'xy', ['{"id":3}']],
    ['a near-marker is text', ['@@M', '!', '\n'], '@@M!\n', []],
    ['two frames in one chunk', ['@@M@@1\n@@M@@2\nend'], 'end', ['1', '2']],
  ];
  for (const [name, chunks, text, frames] of table) {
    it(name, () => expect(split(chunks)).toEqual({ text, frames }));
  }

  it('a frame split over many chunks, with text and another frame after it', () => {
    expect(split(['@@M@@{"a":', '"', 'b', '"}', '\n', 'tail@@M@@2\nend'])).toEqual({
      text: 'tailend',
      frames: ['{"a":"b"}', '2'],
    });
  });

  it('an unfinished frame at the end is output', () => {
    expect(split(['a@@M@@{"x"', ':1'])).toEqual({ text: 'a@@M@@{"x":1', frames: [] });
  });

  it('a frame over the cap ends the stream once; a frame at the cap passes', () => {
    const got: string[] = [];
    let overflows = 0;
    const s = new FrameSplitter(
      '@@M@@',
      (t) => got.push(`t:${t}`),
      (f) => got.push(`f:${f}`),
      10,
      () => overflows++,
    );
    s.push('@@M@@0123456789\n@@M@@01234');
    s.push('56789');
    expect(overflows).toBe(0);
    s.push('X');
    s.push('more\n@@M@@1\ntext');
    s.end();
    expect(overflows).toBe(1);
    expect(got).toEqual(['f:0123456789']);
  });

  it('a long line of ordinary text without a newline is passed on, not held', () => {
    let text = '';
    const s = new FrameSplitter(
      '@@M@@',
      (t) => (text += t),
      () => undefined,
    );
    for (let i = 0; i < 1000; i++) {
      s.push('x'.repeat(1000) + '@@');
      // Only what could start a marker is held back.
      expect(text.length).toBe(i * 1003 + 1000);
      s.push('!');
    }
  });

  // Linear: a quadratic splitter would take minutes on these sizes, far past this test's timeout.
  it('is linear: a frame just under the cap in 64 KiB chunks, and one over it', () => {
    const chunk = 'y'.repeat(64 * 1024);
    for (const size of [MAX_FRAME_CHARS - 10, MAX_FRAME_CHARS + 4 * 1024 * 1024]) {
      const frames: string[] = [];
      let overflows = 0;
      const s = new FrameSplitter(
        '@@M@@',
        () => undefined,
        (f) => frames.push(f),
        MAX_FRAME_CHARS,
        () => overflows++,
      );
      s.push('@@M@@');
      for (let sent = 0; sent < size; sent += chunk.length) s.push(chunk.slice(0, Math.min(chunk.length, size - sent)));
      s.push('\n');
      if (size <= MAX_FRAME_CHARS) expect([frames.length, frames[0]?.length, overflows]).toEqual([1, size, 0]);
      else expect([frames.length, overflows]).toEqual([0, 1]);
    }
  });
});

describe('python bootstrap', () => {
  it('is valid python and quoted as one shell word', () => {
    const r = spawnSync('python3', ['-c', `import ast; ast.parse(${JSON.stringify(PYTHON_BOOTSTRAP)})`], {
      encoding: 'utf8',
    });
    if (r.error) return; // no python3 here: the tool suite covers it where it exists
    expect(r.status).toBe(0);
    expect(bootstrapCommand(toolDefs)).toMatch(
      /^command -v python3 .*\nPYTHONIOENCODING=utf-8 PYTHONDONTWRITEBYTECODE=1 exec python3 -u -c '.*'$/s,
    );
  });
});

/** A local environment on the test's own home `dir`. */
const localEnv = (dir: string): Environment =>
  localProvider.createEnvironment(
    {
      name: 'l',
      generation: 'g',
      identity: 'l#g',
      source: 'config',
      state: 'active',
      spec: { backend: 'local' },
      flags: localProvider.flags,
      timeoutSec: 30,
    },
    { home: dir, resolveSpec: () => undefined },
  );

describe('runCode round trip (local python3)', () => {
  const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0;
  for (const withoutJson of [false, true]) {
    it.skipIf(!hasPython)(
      `passes arguments and results exactly${withoutJson ? ' without the json module (python3-minimal)' : ''}`,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'sb-code-'));
        // A json.py that fails to import stands in for Debian's python3-minimal, which has no json module.
        writeFileSync(join(dir, 'json.py'), 'raise ImportError("no json here")\n');
        const local = localEnv(dir);
        const env: Environment = {
          ...local,
          spawnBackground: (cmd, o) =>
            local.spawnBackground(cmd, { ...o, env: withoutJson ? { PYTHONPATH: dir } : {} }),
        } as Environment;
        const seen: Array<[string, Record<string, unknown>]> = [];
        const tricky = 'é 😀 "q" \\ \t\u0001 end\n';
        const r = await runCode(env, {
          code: [
            'import switchboard_tools as t',
            'r = t.read_file("f", limit=3)',
            'print(repr(r["content"]), r["n"], r["l"], r["o"])',
            `t.write_file("g", ${JSON.stringify(tricky)})`,
            'try:\n    t.patch("g", "a", "b")\nexcept t.SwitchboardToolError as e:\n    print("error:", e)',
          ].join('\n'),
          cwd: dir,
          timeoutMs: 20_000,
          tools: toolDefs,
          call: async (tool, args) => {
            seen.push([tool, args]);
            if (tool === 'patch') throw new SwitchboardError('bad_request', 'old_string was not found in g');
            return {
              execution_target: 'l',
              generation: 'g',
              content: tricky,
              n: 1.5,
              l: [true, false, null, -2],
              o: {},
            };
          },
        });
        rmSync(dir, { recursive: true, force: true });
        expect(r.exit_code).toBe(0);
        expect(r.output).toBe(
          `'é 😀 "q" \\\\ \\t\\x01 end\\n' 1.5 [True, False, None, -2] {}\nerror: old_string was not found in g\n`,
        );
        expect(seen).toEqual([
          ['read_file', { path: 'f', limit: 3 }],
          ['write_file', { path: 'g', content: tricky }],
          ['patch', { path: 'g', old_string: 'a', new_string: 'b' }],
        ]);
      },
    );
  }
});

describe('runCode stops what it started', () => {
  const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0;

  it.skipIf(!hasPython)(
    'a timeout aborts the nested call in flight and returns without waiting for it',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-code-'));
      let nestedAborted = false;
      // The nested call would take 60 s and the test gives up after 30: returning at all proves it did not wait.
      // The 5 s timeout leaves python time to start and make its call even on a loaded machine.
      const r = await runCode(localEnv(dir), {
        code: 'import switchboard_tools as t\nt.terminal("sleep 60", timeout=90)\nprint("after")',
        cwd: dir,
        timeoutMs: 5000,
        tools: toolDefs,
        // A nested call that honours its signal, as the terminal tool does through env.exec.
        call: (_tool, _args, signal) =>
          new Promise((resolve) => {
            const done = setTimeout(
              () => resolve({ execution_target: 'l', generation: 'g', output: 'nested-done' }),
              60_000,
            );
            signal.addEventListener('abort', () => {
              nestedAborted = true;
              clearTimeout(done);
              resolve({ execution_target: 'l', generation: 'g', output: '', exit_code: 130 });
            });
          }),
      });
      rmSync(dir, { recursive: true, force: true });
      expect(r).toMatchObject({ timed_out: true, exit_code: 124, tool_calls: 1 });
      expect(r.output).not.toContain('after');
      expect(nestedAborted).toBe(true);
    },
    30_000,
  );

  it.skipIf(!hasPython)(
    'a nested call that ignores its signal holds the result back for the grace only',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-code-'));
      // The nested call never settles within the test's 30 s: returning at all proves the grace is bounded.
      const r = await runCode(localEnv(dir), {
        code: 'import switchboard_tools as t\nt.terminal("sleep 60")',
        cwd: dir,
        timeoutMs: 2000,
        tools: toolDefs,
        call: () =>
          new Promise((resolve) =>
            setTimeout(() => resolve({ execution_target: 'l', generation: 'g' }), 60_000).unref(),
          ),
      });
      rmSync(dir, { recursive: true, force: true });
      expect(r).toMatchObject({ timed_out: true, exit_code: 124 });
    },
    30_000,
  );

  it.skipIf(!hasPython)(
    'a tool call over the request cap kills the script with one clear error',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-code-'));
      let calls = 0;
      const r = await runCode(localEnv(dir), {
        code:
          `import switchboard_tools as t\nprint("before", flush=True)\nt.write_file("big", ` +
          `"z" * (${MAX_FRAME_CHARS + 1024}))\nprint("after")`,
        cwd: dir,
        timeoutMs: 60_000,
        tools: toolDefs,
        call: async () => {
          calls++;
          return { execution_target: 'l', generation: 'g' };
        },
      });
      rmSync(dir, { recursive: true, force: true });
      expect(calls).toBe(0);
      const line = `execute_code: a tool call from the script is over ${MAX_FRAME_CHARS / 1024 / 1024} MiB`;
      expect(r.error).toBe(line);
      expect(r.output).toContain('before');
      expect(r.output).not.toContain('after');
      expect(r.output.endsWith(`[${line}]`)).toBe(true);
    },
    30_000,
  );
});
