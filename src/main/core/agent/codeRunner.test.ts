import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import type { Environment } from '../backends/provider.js';
import { localProvider } from '../backends/local/localProvider.js';
import { FrameSplitter, runCode } from './codeRunner.js';
import { PYTHON_BOOTSTRAP, bootstrapCommand } from './pythonBootstrap.js';

function split(chunks: string[], marker = '@@M@@'): { text: string; frames: string[] } {
  let text = '';
  const frames: string[] = [];
  const s = new FrameSplitter(marker, (t) => (text += t), (f) => frames.push(f));
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
});

describe('python bootstrap', () => {
  it('is valid python and quoted as one shell word', () => {
    const r = spawnSync('python3', ['-c', `import ast; ast.parse(${JSON.stringify(PYTHON_BOOTSTRAP)})`], { encoding: 'utf8' });
    if (r.error) return; // no python3 here: the tool suite covers it where it exists
    expect(r.status).toBe(0);
    expect(bootstrapCommand()).toMatch(/^PYTHONIOENCODING=utf-8 PYTHONDONTWRITEBYTECODE=1 exec python3 -u -c '/);
  });
});

describe('runCode round trip (local python3)', () => {
  const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0;
  for (const withoutJson of [false, true]) {
    it.skipIf(!hasPython)(`passes arguments and results exactly${withoutJson ? ' without the json module (python3-minimal)' : ''}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-code-'));
      // A json.py that fails to import stands in for Debian's python3-minimal, which has no json module.
      writeFileSync(join(dir, 'json.py'), 'raise ImportError("no json here")\n');
      const local = localProvider.createEnvironment(
        { name: 'l', generation: 'g', identity: 'l#g', source: 'config', state: 'active', spec: { backend: 'local' }, flags: localProvider.flags, timeoutSec: 30 },
        { home: dir, resolveSpec: () => undefined },
      );
      const env: Environment = { ...local, spawnBackground: (cmd, o) => local.spawnBackground(cmd, { ...o, env: withoutJson ? { PYTHONPATH: dir } : {} }) } as Environment;
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
        call: async (tool, args) => {
          seen.push([tool, args]);
          if (tool === 'patch') throw new SwitchboardError('bad_request', 'old_string was not found in g');
          return { execution_target: 'l', generation: 'g', content: tricky, n: 1.5, l: [true, false, null, -2], o: {} };
        },
      });
      rmSync(dir, { recursive: true, force: true });
      expect(r.exit_code).toBe(0);
      expect(r.output).toBe(`'é 😀 "q" \\\\ \\t\\x01 end\\n' 1.5 [True, False, None, -2] {}\nerror: old_string was not found in g\n`);
      expect(seen).toEqual([
        ['read_file', { path: 'f', limit: 3 }],
        ['write_file', { path: 'g', content: tricky }],
        ['patch', { path: 'g', old_string: 'a', new_string: 'b' }],
      ]);
    });
  }
});
