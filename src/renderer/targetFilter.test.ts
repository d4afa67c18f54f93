import { describe, expect, it } from 'vitest';
import type { TargetInfo } from '../shared/targets.js';
import { groupTargets, matchesTarget, ownerOf, paletteTargets, sortTargets, summaryOf } from './targetFilter.js';
import { shownState, type Shown } from './targetHealth.js';

const t = (name: string, extra: Partial<TargetInfo> = {}): TargetInfo => ({
  name,
  generation: 'g1',
  source: 'runtime',
  state: 'active',
  backend: 'ssh',
  spec: { backend: 'ssh' },
  is_default: false,
  provider: 'ci',
  owner_id: 'job-41',
  health: { status: 'reachable' },
  ...extra,
});
const shown = (x: TargetInfo): Shown => shownState(x);

describe('the fleet filter', () => {
  it.each([
    ['f137', 'f13', true],
    ['f137', 'job-4', true],
    ['f137', 'ci/job', true],
    ['f137', 'SSH reach', true],
    ['f137', 'docker', false],
    ['f137', 'job-42', false],
    ['f137', '', true],
  ])('%s matches "%s": %s', (name, query, yes) => {
    expect(matchesTarget(t(name), shown(t(name)), query)).toBe(yes);
  });

  it('finds states by their words: "not checked" and "down"', () => {
    const quiet = t('q', { health: { status: 'unchecked' } });
    const down = t('d', { health: { status: 'unreachable' } });
    expect(matchesTarget(quiet, shown(quiet), 'not checked')).toBe(true);
    expect(matchesTarget(down, shown(down), 'down')).toBe(true);
    expect(matchesTarget(quiet, shown(quiet), 'down')).toBe(false);
  });

  it('owners: provider/owner for runtime targets, config for config.yaml', () => {
    expect(ownerOf(t('a'))).toBe('ci/job-41');
    expect(ownerOf(t('a', { owner_id: '' }))).toBe('ci');
    expect(ownerOf(t('a', { source: 'config' }))).toBe('config');
  });
});

describe('groups and order', () => {
  const list = [
    t('f10'),
    t('f9', { health: { status: 'unreachable' } }),
    t('f2', { owner_id: 'job-42', state: 'draining' }),
    t('f1', { owner_id: 'job-42', health: { status: 'unchecked' } }),
  ];

  it('sorts by name (numbers as numbers), by state (trouble first), by last use', () => {
    expect(sortTargets(list, 'name', shown, new Map()).map((x) => x.name)).toEqual(['f1', 'f2', 'f9', 'f10']);
    expect(sortTargets(list, 'state', shown, new Map()).map((x) => x.name)).toEqual(['f9', 'f1', 'f2', 'f10']);
    const used = new Map([
      ['f2', 5],
      ['f10', 9],
    ]);
    expect(sortTargets(list, 'lastUse', shown, used).map((x) => x.name)).toEqual(['f10', 'f2', 'f1', 'f9']);
  });

  it('groups by owner with a count and the states that need a look', () => {
    const groups = groupTargets(sortTargets(list, 'name', shown, new Map()), 'owner', shown);
    expect(groups.map((g) => [g.label, g.summary])).toEqual([
      ['ci/job-42', '2 targets · 1 draining · 1 not checked yet'],
      ['ci/job-41', '2 targets · 1 unreachable'],
    ]);
    expect(groupTargets(list, 'none', shown)).toHaveLength(1);
    expect(summaryOf([t('x')], shown)).toBe('1 target');
  });

  it("the palette's New terminal on …: active targets its words find, none for an empty query", () => {
    expect(paletteTargets(list, '')).toEqual([]);
    expect(paletteTargets(list, 'new terminal job-42')).toEqual(['f1']);
    expect(paletteTargets(list, 'f1')).toEqual(['f10', 'f1']);
  });
});
