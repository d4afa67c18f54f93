// Which managed containers are orphans, by their labels alone (a table): the rest is listing and removing
// (containerStop.test).
import { describe, expect, it } from 'vitest';
import {
  generationLabel,
  keepLabel,
  profileLabel,
  profilePathLabel,
  shortHash,
  targetLabel,
} from './containerConfig.js';
import { orphanReason } from './orphanContainers.js';

const home = '/home/p/.switchboard';
const labels = (
  target: string,
  generation: string,
  profile: string | undefined,
  extra: Record<string, string> = {},
): Record<string, string> => ({
  [targetLabel]: target,
  [generationLabel]: generation,
  [profileLabel]: shortHash(profile ?? home),
  ...(profile ? { [profilePathLabel]: profile } : {}),
  ...extra,
});
const identities = new Set(['box#g2', 'other#g1']);
const exists = (p: string): boolean => p === home || p === '/srv/live';

describe('orphanReason', () => {
  it.each([
    ['a target of this profile that exists', labels('box', 'g2', home), undefined],
    ['a target of this profile that is gone', labels('gone', 'g1', home), 'target "gone" no longer exists'],
    ['an older generation of a target', labels('box', 'g1', home), 'target "box" has another generation now'],
    [
      'an old container of this profile (hash label only)',
      labels('gone', 'g1', undefined),
      'target "gone" no longer exists',
    ],
    ['a deleted profile', labels('box', 'g2', '/srv/deleted'), 'its profile /srv/deleted no longer exists'],
    ['another living profile', labels('zzz', 'g9', '/srv/live'), undefined],
    ['a container kept on purpose (docker_keep)', labels('gone', 'g1', home, { [keepLabel]: 'true' }), undefined],
  ])('%s', (_what, l, why) => {
    expect(orphanReason(l, home, identities, exists)).toBe(why);
  });

  it('judges none of this profile when its targets could not all be read, but still a deleted profile', () => {
    expect(orphanReason(labels('gone', 'g1', home), home, undefined, exists)).toBeUndefined();
    expect(orphanReason(labels('box', 'g2', '/srv/deleted'), home, undefined, exists)).toBe(
      'its profile /srv/deleted no longer exists',
    );
  });

  it('a hash-only container of another profile cannot be told, so it is not listed', () => {
    expect(
      orphanReason(
        { [targetLabel]: 'x', [generationLabel]: 'g', [profileLabel]: shortHash('/elsewhere') },
        home,
        identities,
        exists,
      ),
    ).toBeUndefined();
  });
});
