import { describe, expect, it } from 'vitest';
import { writableHostPathIn } from './writableHostPath.js';

describe('writableHostPathIn', () => {
  const table: Array<[string, Record<string, unknown>, string | undefined]> = [
    ['no fields', { backend: 'bwrap' }, undefined],
    ['cwd and timeout are inside the target', { backend: 'bwrap', cwd: '/workspace', timeout: 30 }, undefined],
    [
      'a bind of a host folder',
      { backend: 'bwrap', binds: ['/home/me/project:/project'] },
      'binds: /home/me/project:/project',
    ],
    ['a bare host path', { backend: 'bwrap', binds: ['/srv/data'] }, 'binds: /srv/data'],
    ['a read-only bind does not count', { backend: 'bwrap', binds: ['/home/me/ref:/ref:ro'] }, undefined],
    ['ro among options', { backend: 'x', mounts: ['/a:/b:ro,z'] }, undefined],
    ['rw option counts', { backend: 'x', mounts: ['/a:/b:rw'] }, 'mounts: /a:/b:rw'],
    ['a home path', { backend: 'x', share: '~/src:/w' }, 'share: ~/src:/w'],
    ['a relative path', { backend: 'x', share: './src' }, 'share: ./src'],
    ['a path in a map', { backend: 'x', volumes: { data: '../up:/up' } }, 'volumes: ../up:/up'],
    ['a named volume is not a host path', { backend: 'x', volumes: ['data:/data'] }, undefined],
    ['a URL is not a host path', { backend: 'x', api_url: 'https://sandbox.example.com/v1' }, undefined],
    ['a variable name is not a host path', { backend: 'x', token_env: 'SANDBOX_API_TOKEN' }, undefined],
    ['booleans and numbers are not paths', { backend: 'x', share_network: true, cpus: 2 }, undefined],
  ];
  for (const [name, spec, found] of table) it(name, () => expect(writableHostPathIn(spec)).toBe(found));
});
