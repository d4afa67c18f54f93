import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWrapped, shellQuote, wrapCommand } from './shellWrap.js';

function run(shell: string, command: string, cwd: string, envFile?: string) {
  const { script, marker } = wrapCommand(command, { cwd, envFile });
  const r = spawnSync(shell, ['-c', script], { encoding: 'utf8' });
  return { ...parseWrapped(r.stdout, marker), status: r.status };
}

describe('wrapCommand', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-wrap-'));
  for (const shell of ['/bin/bash', '/bin/sh']) {
    describe(shell, () => {
      it('reports the cwd after cd and keeps the exit code', () => {
        mkdirSync(join(dir, 'sub'), { recursive: true });
        const r = run(shell, 'cd sub && echo hi; exit 3', dir);
        expect(r.output).toBe('hi\n');
        expect(r.cwd).toBe(join(dir, 'sub'));
        expect(r.status).toBe(3);
      });
      it('merges stderr and survives quotes', () => {
        const r = run(shell, `echo "it's" >&2; echo 'a"b'`, dir);
        expect(r.output).toBe(`it's\na"b\n`);
      });
      it('falls back to the nearest existing parent of a deleted cwd', () => {
        const r = run(shell, 'pwd', join(dir, 'gone', 'deeper'));
        expect(r.output).toBe(dir + '\n');
      });
      it('keeps exported variables in the env file', () => {
        const envFile = join(dir, `env-${shell.replace(/\W/g, '')}.sh`);
        run(shell, 'export SB_TEST_VAR="x y"', dir, envFile);
        expect(run(shell, 'echo "$SB_TEST_VAR"', dir, envFile).output).toBe('x y\n');
      });
    });
  }
  it('quotes', () => {
    expect(shellQuote(`a'b`)).toBe(`'a'\\''b'`);
  });
  it('cleans up', () => rmSync(dir, { recursive: true, force: true }));
});
