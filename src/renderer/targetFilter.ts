// Finding one target among hundreds: the filter, the groups and the orders the sidebar and the palette share. Pure.
import type { TargetInfo } from '../shared/targets.js';
import type { Shown } from './targetHealth.js';

export type GroupBy = 'none' | 'source' | 'owner' | 'backend';
export type SortBy = 'name' | 'state' | 'lastUse';

/** Words a state is found by ("unre" finds unreachable, "not checked" finds the unprobed). */
const stateWords: Record<Shown, string> = {
  active: 'active',
  checking: 'checking',
  unchecked: 'not checked yet unchecked',
  reachable: 'reachable',
  draining: 'draining',
  unreachable: 'unreachable down',
  removed: 'removed',
  disconnected: 'disconnected',
};

/** Who registered a target: `provider/owner` for a runtime one ("ci/job-41"), `config` for config.yaml's. */
export function ownerOf(t: TargetInfo): string {
  if (t.source === 'config') return 'config';
  const provider = t.provider ?? 'runtime';
  return t.owner_id ? `${provider}/${t.owner_id}` : provider;
}

/** Every word of the query occurs in the target's name, backend, provider/owner, source or state, in any order. */
export function matchesTarget(t: TargetInfo, shown: Shown, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = [t.name, t.backend, ownerOf(t), t.source, stateWords[shown]].join(' ').toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** States that need a look come first when sorting by state. */
const stateRank: Record<Shown, number> = {
  unreachable: 0,
  disconnected: 1,
  checking: 2,
  unchecked: 3,
  draining: 4,
  active: 5,
  reachable: 5,
  removed: 6,
};

export function sortTargets(
  list: readonly TargetInfo[],
  by: SortBy,
  shownOf: (t: TargetInfo) => Shown,
  lastUse: ReadonlyMap<string, number>,
): TargetInfo[] {
  const byName = (a: TargetInfo, b: TargetInfo): number => a.name.localeCompare(b.name, undefined, { numeric: true });
  const out = [...list];
  if (by === 'name') return out.sort(byName);
  if (by === 'state') return out.sort((a, b) => stateRank[shownOf(a)] - stateRank[shownOf(b)] || byName(a, b));
  return out.sort((a, b) => (lastUse.get(b.name) ?? 0) - (lastUse.get(a.name) ?? 0) || byName(a, b));
}

export interface TargetGroup {
  key: string;
  label: string;
  targets: TargetInfo[];
  /** "12 targets · 1 unreachable": the count, then every state that needs a look. */
  summary: string;
}

/** Groups in order of first appearance in `list` (already sorted); `none` is one group without a header. */
export function groupTargets(
  list: readonly TargetInfo[],
  by: GroupBy,
  shownOf: (t: TargetInfo) => Shown,
  backendLabel: (backend: string) => string = (b) => b,
): TargetGroup[] {
  const keyOf = (t: TargetInfo): [string, string] => {
    if (by === 'source') return [t.source, t.source];
    if (by === 'owner') return [ownerOf(t), ownerOf(t)];
    if (by === 'backend') return [t.backend, backendLabel(t.backend)];
    return ['', ''];
  };
  const groups = new Map<string, TargetGroup>();
  for (const t of list) {
    const [key, label] = keyOf(t);
    let g = groups.get(key);
    if (!g) {
      g = { key, label, targets: [], summary: '' };
      groups.set(key, g);
    }
    g.targets.push(t);
  }
  for (const g of groups.values()) g.summary = summaryOf(g.targets, shownOf);
  return [...groups.values()];
}

/** The states worth a word, in the order they matter. */
const noted: Array<[Shown, string]> = [
  ['unreachable', 'unreachable'],
  ['disconnected', 'disconnected'],
  ['draining', 'draining'],
  ['checking', 'checking'],
  ['unchecked', 'not checked yet'],
];

export function summaryOf(targets: readonly TargetInfo[], shownOf: (t: TargetInfo) => Shown): string {
  const counts = new Map<Shown, number>();
  for (const t of targets) counts.set(shownOf(t), (counts.get(shownOf(t)) ?? 0) + 1);
  const parts = [`${targets.length} target${targets.length === 1 ? '' : 's'}`];
  for (const [state, word] of noted) {
    const n = counts.get(state);
    if (n) parts.push(`${n} ${word}`);
  }
  return parts.join(' · ');
}

/** Words of the palette's own entries ("New terminal on …"), not a target's. */
const paletteVerbs = new Set('new terminal on open'.split(' '));

/** The palette's "New terminal on …" for what is typed: active targets that take a pane, found as the sidebar finds. */
export function paletteTargets(list: readonly TargetInfo[], query: string, max = 20): string[] {
  if (query.trim() === '') return [];
  // The palette's words may also be a command's ("new terminal gpu"): a target matches on the words its own
  // fields have, ignoring the palette's own verbs.
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w && !paletteVerbs.has(w));
  if (words.length === 0) return [];
  return list
    .filter((t) => t.state === 'active' && t.flags?.supports_streams !== false)
    .filter((t) => matchesTarget(t, t.health?.status ?? 'active', words.join(' ')))
    .slice(0, max)
    .map((t) => t.name);
}
