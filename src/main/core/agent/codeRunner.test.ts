import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { FrameSplitter } from './codeRunner.js';
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
