import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProgram, paneShellWords, resolvePaneShell } from './paneShell.js';
import { LocalSpec } from './fields.js';
import { publicSpec } from '../../../../shared/targets.js';
import { localSpec } from './fields.js';

describe('a local target’s shell fields', () => {
  it.each([
    [{ shell: 'zsh -l' }, true],
    [{ shell: 'bash --login', shell_login: true, shell_env: { EDITOR: 'vim', _X1: '' } }, true],
    [{ shell: 'fish; rm -rf ~' }, false],
    [{ shell: '' }, false],
    [{ shell_login: 'yes' }, false],
    [{ shell_env: { 'BAD-NAME': 'x' } }, false],
    [{ shell_env: { '1X': 'x' } }, false],
    [{ shell_env: { X: 1 } }, false],
  ])('%j valid: %s', (fields, valid) => {
    expect(LocalSpec.safeParse({ backend: 'local', ...fields }).success).toBe(valid);
  });

  it('says which name is wrong, and never echoes a value', () => {
    const r = LocalSpec.safeParse({ backend: 'local', shell_env: { 'MY-KEY': 'hunter2-secret' } });
    expect(r.success).toBe(false);
    const text = JSON.stringify(r.error?.issues);
    expect(text).toContain('a variable name is letters, digits and _');
    expect(text).not.toContain('hunter2');
    const bad = LocalSpec.safeParse({ backend: 'local', shell: 'zsh && x' });
    expect(bad.error?.issues[0]?.message).toBe(
      'shell is a program and its arguments, started without a shell: & means nothing here (quote it to pass it)',
    );
  });

  it('lists the environment with the values that look like secrets masked', () => {
    const spec = {
      backend: 'local',
      shell_env: { EDITOR: 'vim', GITHUB_TOKEN: 'ghp_0123456789abcdefghij0123456789abcd', DB: 'postgres://me:pw@db/x' },
    };
    expect(publicSpec(spec, localSpec.fields).shell_env).toEqual({
      EDITOR: 'vim',
      GITHUB_TOKEN: '[redacted]',
      DB: '[redacted]',
    });
  });
});

describe('paneShellWords', () => {
  it.each([
    [{}, ['/bin/fallback']],
    [{ shell_login: true }, ['/bin/fallback', '-l']],
    [{ shell: 'zsh -l', shell_login: true }, ['zsh', '-l']],
    [{ shell: 'bash --login', shell_login: true }, ['bash', '--login']],
    [{ shell: 'bash --norc -i', shell_login: true }, ['bash', '--norc', '-l', '-i']],
    [{ shell: 'bash --norc', shell_login: true }, ['bash', '--norc', '-l']],
    [{ shell: 'fish', shell_login: false }, ['fish']],
    [{ shell: '~/bin/fish' }, ['/home/me/bin/fish']],
  ])('%j → %j', (spec, words) => {
    expect(paneShellWords(spec, '/bin/fallback', '/home/me')).toEqual(words);
  });
});

describe('finding the program', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-paneshell-'));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'myshell'), '#!/bin/sh\n');
  chmodSync(join(dir, 'bin', 'myshell'), 0o755);
  writeFileSync(join(dir, 'bin', 'notexec'), '#!/bin/sh\n');

  it('looks a bare name up on PATH, takes a path as it is, and finds nothing that cannot run', async () => {
    expect(await findProgram('myshell', `/no/such:relative:${join(dir, 'bin')}`)).toBe(join(dir, 'bin', 'myshell'));
    expect(await findProgram(join(dir, 'bin', 'myshell'), '')).toBe(join(dir, 'bin', 'myshell'));
    expect(await findProgram('notexec', join(dir, 'bin'))).toBeUndefined();
    expect(await findProgram(join(dir, 'bin'), '')).toBeUndefined();
    expect(await findProgram('myshell', undefined)).toBeUndefined();
  });

  it('a missing program is one line naming it and the target', async () => {
    await expect(resolvePaneShell(['/usr/bin/no-such-fish', '-l'], '/usr/bin', 'local')).rejects.toThrow(
      /^shell \/usr\/bin\/no-such-fish not found on local$/,
    );
    await expect(resolvePaneShell(['./bin/myshell'], '', 'dev')).rejects.toThrow(
      'shell ./bin/myshell on dev is a relative path',
    );
    expect(await resolvePaneShell(['myshell', '-i'], join(dir, 'bin'), 'local')).toEqual([
      join(dir, 'bin', 'myshell'),
      '-i',
    ]);
  });
});
