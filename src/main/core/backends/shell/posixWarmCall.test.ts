// The POSIX warm call's pieces that need no container: which commands may change a variable, the call line's shape.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mayAssign, posixWarmCall, posixWarmPrelude } from './posixWarmCall.js';

describe('mayAssign', () => {
  it('is false only for commands that cannot change a shell variable', () => {
    for (const c of ['true', 'ls -la /tmp', 'cd /usr && pwd', 'python3 x.py', 'echo "$HOME"', 'cat a | grep b', 'env']) expect(mayAssign(c), c).toBe(false);
    for (const c of [
      'export A=1', 'A=1', 'unset PATH', 'read X < f', 'set -a', '. ./env.sh', 'source env.sh', 'eval "$x"', 'echo ${X:=1}', 'for X in a; do :; done',
      'declare -x X', 'typeset -x X', 'printf -v X 1', 'mapfile X < f', 'getopts ab X', 'let X++', '\\export X', '"export" X', 'x; readonly X', 'command export X',
    ]) expect(mayAssign(c), c).toBe(true);
  });
});

describe('posixWarmCall', () => {
  it('is valid sh ending in a newline, and the prelude parses too', () => {
    const call = posixWarmCall("echo 'it''s'", { cwd: '/tmp', envFile: '/tmp/x.sh' }, { __sb_job: 'ab12', SB_CORE_RUN: "r'1" });
    expect(call.script.endsWith('\n')).toBe(true);
    for (const text of [call.script, posixWarmPrelude()]) expect(spawnSync('sh', ['-n', '-c', text]).status).toBe(0);
  });
});
