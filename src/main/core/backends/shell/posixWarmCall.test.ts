// The POSIX warm call's pieces that need no container: which commands may change a variable, the call line's shape.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { posixWarmCall, posixWarmPrelude } from './posixWarmCall.js';
import { mayChangeExports } from './warmProgram.js';

describe('mayChangeExports', () => {
  it('is false only for commands that cannot change a shell variable, however the shell expands them', () => {
    for (const c of [
      'true',
      'ls -la /tmp',
      'cd /usr && pwd',
      'python3 x.py',
      'git commit --amend --no-edit',
      'cat a | grep b > out.txt',
      'env',
      'npm run build-all',
    ]) {
      expect(mayChangeExports(c), c).toBe(false);
    }
    for (const c of [
      'export A=1',
      'A=1',
      'unset PATH',
      'read X < f',
      'set -a',
      '. ./env.sh',
      'source env.sh',
      'eval "$x"',
      'echo ${X:=1}',
      'for X in a; do :; done',
      'declare -x X',
      'typeset -x X',
      'printf -v X 1',
      'mapfile X < f',
      'getopts ab X',
      'let X++',
      '\\export X',
      '"export" X',
      'x; readonly X',
      'command export X',
      'e""xport X',
      "e''xport X",
      'e\\xport X',
      '$c X',
      '`echo export` X',
      'expor? X',
      'e{x,}port X',
      '((X++))',
      'echo "$HOME"',
      'shopt -s allexport',
    ])
      expect(mayChangeExports(c), c).toBe(true);
  });
});

describe('posixWarmCall', () => {
  it('is valid sh ending in a newline, and the prelude parses too', () => {
    const call = posixWarmCall(
      "echo 'it''s'",
      { cwd: '/tmp', envFile: '/tmp/x.sh' },
      { __sb_job: 'ab12', SB_CORE_RUN: "r'1" },
    );
    expect(call.script.endsWith('\n')).toBe(true);
    for (const text of [call.script, posixWarmPrelude()]) expect(spawnSync('sh', ['-n', '-c', text]).status).toBe(0);
  });
});
