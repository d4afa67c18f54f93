import { describe, expect, it } from 'vitest';
import { dockerFlags, mountsHostPath } from './dockerFlags.js';

describe('dockerFlags', () => {
  const table: Array<[string, Record<string, unknown>, boolean]> = [
    ['a managed container of its own skips container guards', { backend: 'docker', docker_image: 'debian' }, true],
    [
      'named volumes only still skip',
      { backend: 'docker', docker_image: 'debian', docker_volumes: ['data:/data', 'cache_1:/c:ro'] },
      true,
    ],
    [
      'a host path mount does not skip',
      { backend: 'docker', docker_image: 'debian', docker_volumes: ['data:/data', '/home/me/src:/w'] },
      false,
    ],
    ['a ~ mount does not skip', { backend: 'docker', docker_image: 'debian', docker_volumes: ['~/src:/w'] }, false],
    [
      'a relative mount does not skip',
      { backend: 'docker', docker_image: 'debian', docker_volumes: ['./src:/w:rw'] },
      false,
    ],
    ["an attached container (the user's own) does not skip", { backend: 'docker', docker_container: 'mine' }, false],
  ];
  for (const [name, spec, skip] of table) {
    it(name, () => {
      const flags = dockerFlags(spec as never);
      expect(flags.skip_container_guards).toBe(skip);
      expect(flags).toMatchObject({ is_container: true, is_remote: false });
    });
  }
  it('tells a named volume from a host path', () => {
    expect(mountsHostPath('data:/data')).toBe(false);
    expect(mountsHostPath('/:/host')).toBe(true);
  });
});
