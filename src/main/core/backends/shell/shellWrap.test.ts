import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markerLineSeen, parseWrapped, shellQuote, wrapCommand } from './shellWrap.js';

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
        expect(r.output).toBe(`[the cwd ${join(dir, 'gone', 'deeper')} no longer exists; running in ${dir}]\n${dir}\n`);
        expect(r.cwd).toBe(dir);
      });
      it('refuses a missing directory the caller named: nothing runs', () => {
        const { script, marker } = wrapCommand('touch ran', { cwd: join(dir, 'typo'), cwdMustExist: true });
        const out = spawnSync(shell, ['-c', script], { encoding: 'utf8', cwd: dir });
        expect(parseWrapped(out.stdout, marker)).toEqual({ output: '', cwd: undefined, missingCwd: true });
        expect(markerLineSeen(out.stdout, marker)).toBe(true);
        expect(statSync(join(dir, 'ran'), { throwIfNoEntry: false })).toBeUndefined();
        expect(run(shell, 'pwd', dir).output).toBe(`${dir}\n`);
      });
      it('never reads an env file another user owns', () => {
        const envFile = join(dir, `planted-${shell.replace(/\W/g, '')}.sh`);
        writeFileSync(envFile, 'export PLANTED=yes\n');
        chownSync(envFile, 65534, 65534);
        expect(run(shell, 'echo "[$PLANTED]"', dir, envFile).output).toBe('[]\n');
      });
      it('keeps exported variables in the env file', () => {
        const envFile = join(dir, `env-${shell.replace(/\W/g, '')}.sh`);
        run(shell, 'export SB_TEST_VAR="x y"', dir, envFile);
        expect(run(shell, 'echo "$SB_TEST_VAR"', dir, envFile).output).toBe('x y\n');
      });
    });
  }
  it('concurrent calls that export nothing do not undo another call\'s export', async () => {
    const envFile = join(dir, 'env-concurrent.sh');
    run('/bin/bash', 'export KEEPME=1', dir, envFile);
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 8 }, () => new Promise<void>((resolve) => {
        const { script } = wrapCommand('true', { cwd: dir, envFile });
        spawn('/bin/bash', ['-c', script]).on('close', () => resolve());
      })));
      expect(run('/bin/bash', 'echo "[$KEEPME]"', dir, envFile).output).toBe('[1]\n');
    }
  });
  it('puts ~/ env files under the home directory, creating it private', () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const { script, marker } = wrapCommand('export X=2', { cwd: dir, envFile: '~/.cache/sb/env.sh' });
    spawnSync('/bin/sh', ['-c', script], { env: { ...process.env, HOME: home } });
    expect(statSync(join(home, '.cache/sb')).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, '.cache/sb/env.sh')).mode & 0o777).toBe(0o600);
    const w = wrapCommand('echo "$X"', { cwd: dir, envFile: '~/.cache/sb/env.sh' });
    expect(parseWrapped(spawnSync('/bin/sh', ['-c', w.script], { env: { ...process.env, HOME: home }, encoding: 'utf8' }).stdout, w.marker).output).toBe('2\n');
    expect(marker).toMatch(/^__SB_CWD_/);
  });
  it('quotes', () => {
    expect(shellQuote(`a'b`)).toBe(`'a'\\''b'`);
  });
  it('cleans up', () => rmSync(dir, { recursive: true, force: true }));
});
