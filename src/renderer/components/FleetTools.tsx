// The sidebar's tools for many targets: the filter (`/`), grouping and order; and the arrow keys through the list.
import type { KeyboardEvent, RefObject } from 'react';
import { useSidebarView } from '../store/sidebarView.js';
import type { GroupBy, SortBy } from '../targetFilter.js';

const groupChoices: Array<[GroupBy, string]> = [
  ['none', 'No groups'],
  ['owner', 'By owner'],
  ['source', 'By source'],
  ['backend', 'By backend'],
];
const sortChoices: Array<[SortBy, string]> = [
  ['name', 'Name'],
  ['state', 'State'],
  ['lastUse', 'Last use'],
];

export function FleetTools({ filter }: { filter: RefObject<HTMLInputElement | null> }) {
  const query = useSidebarView((s) => s.query);
  const groupBy = useSidebarView((s) => s.groupBy);
  const sortBy = useSidebarView((s) => s.sortBy);
  const view = useSidebarView.getState;
  return (
    <div className="fleet-tools">
      <input
        ref={filter}
        className="fleet-tools__filter"
        type="search"
        aria-label="Filter targets"
        placeholder="Filter: name, backend, owner, state  ( / )"
        spellCheck={false}
        value={query}
        onChange={(e) => view().setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && query !== '') {
            e.preventDefault();
            e.stopPropagation();
            view().setQuery('');
          } else if (e.key === 'ArrowDown') {
            e.preventDefault();
            firstItem(e.currentTarget)?.focus();
          }
        }}
      />
      <div className="fleet-tools__row">
        <select
          aria-label="Group targets"
          value={groupBy}
          onChange={(e) => view().setGroupBy(e.target.value as GroupBy)}
        >
          {groupChoices.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
        <select aria-label="Sort targets" value={sortBy} onChange={(e) => view().setSortBy(e.target.value as SortBy)}>
          {sortChoices.map(([v, label]) => (
            <option key={v} value={v}>
              Sort: {label}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

/** The first group header or row of the list beside the filter. */
function firstItem(from: HTMLElement): HTMLElement | null {
  return from.closest('nav')?.querySelector<HTMLElement>('.target-list [data-nav-item]') ?? null;
}

/**
 * Up and Down move between the group headers and rows on screen (Home, End to the ends); Up from the first goes back
 * to the filter. Enter or Space on a header opens or closes its group (it is a button); Left closes, Right opens.
 */
export function navigateList(e: KeyboardEvent<HTMLElement>): void {
  if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key) || e.altKey || e.ctrlKey || e.metaKey) return;
  const active = document.activeElement;
  // Keys typed in a field inside a row (none today) stay there.
  if (active instanceof HTMLInputElement || active instanceof HTMLSelectElement) return;
  const items = [...e.currentTarget.querySelectorAll<HTMLElement>('[data-nav-item]')];
  if (items.length === 0) return;
  const current = active instanceof HTMLElement ? active.closest<HTMLElement>('[data-nav-item]') : null;
  const at = current ? items.indexOf(current) : -1;
  let next: HTMLElement | null | undefined;
  if (e.key === 'Home') next = items[0];
  else if (e.key === 'End') next = items[items.length - 1];
  else if (e.key === 'ArrowDown') next = items[Math.min(items.length - 1, at + 1)];
  else if (at <= 0) next = e.currentTarget.closest('nav')?.querySelector<HTMLElement>('.fleet-tools__filter');
  else next = items[at - 1];
  if (!next) return;
  e.preventDefault();
  next.focus();
  next.scrollIntoView({ block: 'nearest' });
}
