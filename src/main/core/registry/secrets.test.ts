import { describe, expect, it } from 'vitest';
import { findSecret } from './secrets.js';
import { pathProblem } from '../../../shared/specFields.js';
import { secretReferenceKeys } from '../backends/index.js';

const refs = secretReferenceKeys();

describe('findSecret', () => {
  const secret: Array<[string, unknown, string]> = [
    ['a password key', { ssh_password: 'x' }, 'ssh_password'],
    ['a camelCase secret key', { clientSecret: 'x' }, 'clientSecret'],
    ['a token key', { api_token: 'x' }, 'api_token'],
    ['a nested password', { docker_env: { DB_PASSWORD: 'x' } }, 'docker_env.DB_PASSWORD'],
    ['a PEM key anywhere', { note: '-----BEGIN RSA PRIVATE KEY-----' }, 'private key'],
    ['an OpenSSH key body', { ssh_key: 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmU' }, 'OpenSSH'],
    ['a GitHub token in a list', { docker_volumes: ['ghp_0123456789abcdefghijklmnopqrstuvwxyz'] }, 'docker_volumes[0]'],
    ['an AWS key', { x: 'AKIAABCDEFGHIJKLMNOP' }, 'AWS'],
    ['a password in a URL', { docker_host: 'ssh://me:secret@host' }, 'URL'],
  ];
  for (const [what, spec, where] of secret) {
    it(`finds ${what}`, () => {
      expect(findSecret(spec, refs)).toContain(where);
    });
  }

  const clean: Array<[string, unknown]> = [
    ['a key path', { ssh_key: '~/.ssh/id_ed25519' }],
    ['a password variable name', { ssh_password_env: 'MY_PW' }],
    ['the agent flag', { ssh_agent: true }],
    ['a number under a token-ish key', { token_ttl: 300 }],
    ['an empty password', { password: '' }],
    [
      'ordinary routing fields',
      { backend: 'ssh', ssh_host: 'compute.example.com', ssh_port: 22, ssh_user: 'agent', cwd: '~/p' },
    ],
    ['a URL without a password', { docker_host: 'ssh://me@host' }],
  ];
  for (const [what, spec] of clean) {
    it(`accepts ${what}`, () => {
      expect(findSecret(spec, refs)).toBeUndefined();
    });
  }

  it('never returns the value', () => {
    expect(findSecret({ ssh_password: 'hunter2' })).not.toContain('hunter2');
  });

  it('a declared reference is exempt by name only', () => {
    expect(refs.has('ssh_password_env')).toBe(true);
    expect(findSecret({ ssh_password_env: 'MY_PW' })).toContain('ssh_password_env');
    expect(findSecret({ ssh_password_env: 'ghp_0123456789abcdefghijklmnopqrstuvwxyz' }, refs)).toContain('GitHub');
  });

  it('wants a path field to be one line', () => {
    expect(pathProblem({ key: 'ssh_key', secret_ref: true }, '~/.ssh/id')).toBeUndefined();
    expect(pathProblem({ key: 'ssh_key', secret_ref: true }, 'a\nb')).toContain('path of a key file');
    expect(pathProblem({ key: 'cwd', secret_ref: false }, 'a\nb')).toContain('cwd must be a path');
  });
});
