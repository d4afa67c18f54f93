import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../../../shared/errors.js';
import { engineError, isUnreachable, parseDockerHost, unreachableError } from './dockerEndpoint.js';

describe('parseDockerHost', () => {
  it.each<[string | undefined, string | undefined, ReturnType<typeof parseDockerHost>]>([
    [undefined, undefined, { kind: 'unix', socketPath: '/var/run/docker.sock', label: 'unix:///var/run/docker.sock' }],
    [
      undefined,
      'unix:///run/user/1000/docker.sock',
      { kind: 'unix', socketPath: '/run/user/1000/docker.sock', label: 'unix:///run/user/1000/docker.sock' },
    ],
    ['/tmp/d.sock', 'tcp://ignored:1', { kind: 'unix', socketPath: '/tmp/d.sock', label: 'unix:///tmp/d.sock' }],
    [
      'unix:///x/docker.sock',
      undefined,
      { kind: 'unix', socketPath: '/x/docker.sock', label: 'unix:///x/docker.sock' },
    ],
    ['tcp://10.0.0.5:2375', undefined, { kind: 'tcp', host: '10.0.0.5', port: 2375, label: 'tcp://10.0.0.5:2375' }],
    [
      'tcp://docker.example',
      undefined,
      { kind: 'tcp', host: 'docker.example', port: 2375, label: 'tcp://docker.example:2375' },
    ],
    ['tcp://user:secret@h:1234', undefined, { kind: 'tcp', host: 'h', port: 1234, label: 'tcp://h:1234' }],
  ])('%s (env %s)', (value, env, want) => expect(parseDockerHost(value, env)).toEqual(want));

  it.each(['ssh://me@host', 'unix://relative.sock', 'tcp://', 'h:2375'])('%s is a config error', (value) => {
    try {
      parseDockerHost(value, undefined);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SwitchboardError);
      expect((err as SwitchboardError).code).toBe('bad_config');
    }
  });

  it('never echoes a password', () => {
    try {
      parseDockerHost('ssh://me:hunter2@host', undefined);
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});

describe('engine errors', () => {
  const ep = parseDockerHost('/nope/docker.sock', undefined);
  const sys = (code: string): Error => Object.assign(new Error(`connect ${code} /nope/docker.sock`), { code });
  it.each<[string, unknown, boolean]>([
    ['ENOENT', sys('ENOENT'), true],
    ['ECONNREFUSED', sys('ECONNREFUSED'), true],
    ['timeout', Object.assign(new Error('slow'), { name: 'TimeoutError' }), true],
    [
      'HTTP 404',
      Object.assign(new Error('(HTTP code 404) no such container'), {
        statusCode: 404,
        json: { message: 'No such container: x' },
      }),
      false,
    ],
  ])('%s', (_, err, unreachable) => expect(isUnreachable(err)).toBe(unreachable));

  it('unreachable names the endpoint, one line, with a hint', () => {
    const e = unreachableError(ep, sys('ENOENT'));
    expect(e.code).toBe('target_unreachable');
    expect(e.message).toBe('docker engine at unix:///nope/docker.sock is unreachable (no socket there)');
    expect(e.hint).toMatch(/docker_host/);
  });

  it('engine replies keep the engine message', () => {
    const e = engineError(
      ep,
      Object.assign(new Error('(HTTP code 400) bad'), {
        statusCode: 400,
        json: { message: 'invalid mount config\nmore' },
      }),
      'create a container',
    );
    expect(e.code).toBe('bad_config');
    expect(e.message).toBe('docker engine refused to create a container: invalid mount config');
  });
});
