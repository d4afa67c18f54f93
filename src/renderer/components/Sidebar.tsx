// The Targets sidebar: every target with backend, state, source, generation and cwd; live from targets.changed.
// Over 380 lines: the list, its rows, their details and buttons are one view, each a small component beside it.
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import type { TargetInfo } from '../../shared/targets.js';
import { useTargets } from '../store/targets.js';
import { NO_SHELL, backendView, offersPane, useBackendView, useBackends } from '../store/backends.js';
import { useLayout } from '../store/layout.js';
import { focusTerminal } from '../terminal/sessions.js';
import { ago, clockTime, shortGeneration } from '../format.js';
import { useNow } from './useNow.js';
import { shownState, type Shown } from '../targetHealth.js';
import { BackendIcon, IconDrain, IconEdit, IconNoShell, IconPlus, IconSidebar, IconTrash } from './icons.js';
import { call, useConnection } from '../client/core.js';
import { useDialogs } from '../store/dialogs.js';
import { SandboxBadge } from './SandboxBadge.js';
import { sandboxMark } from '../sandboxView.js';
import { useToasts } from '../store/toasts.js';
import { useUi } from '../store/ui.js';
import { useApprovals } from '../store/approvals.js';
import { shortcutOf } from '../keyboard.js';
import { useSettings } from '../store/settings.js';
import { useSidebarView } from '../store/sidebarView.js';
import { useActivity } from '../store/activity.js';
import { groupTargets, matchesTarget, sortTargets, type TargetGroup } from '../targetFilter.js';
import { FleetTools, navigateList } from './FleetTools.js';

const stateLabel: Record<Shown, string> = {
  active: 'active',
  checking: 'checking…',
  unchecked: 'not checked yet',
  reachable: 'reachable',
  draining: 'draining',
  unreachable: 'unreachable',
  removed: 'removed',
  disconnected: 'disconnected',
};

/** "checked 12 s ago", ticking while the row is on screen. */
function CheckedAgo({ at }: { at: string }) {
  const now = useNow(true, 5000);
  const when = ago(at, now);
  return (
    <span
      className="meta-sep target__checked"
      role="note"
      aria-label={`checked ${when}`}
      title={`last checked ${clockTime(at)}`}
    >
      {when}
    </span>
  );
}

/** Remove asks twice: the first click arms the button for a few seconds. */
function RemoveButton({ t }: { t: TargetInfo }) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const timer = setTimeout(() => setArmed(false), 4000);
    return () => clearTimeout(timer);
  }, [armed]);
  const remove = (): void => {
    void call('targets.remove', { name: t.name, generation: t.generation }).then((r) => {
      if (r) useToasts.getState().push({ kind: 'info', message: `Target "${t.name}" removed` });
    });
  };
  const click = (): void => {
    // A target another program registered is that program's: say whose it is and ask in a dialog.
    if (t.provider && t.provider !== 'ui') {
      useDialogs.getState().ask({
        title: `Remove target ${t.name}?`,
        message:
          `${t.name} was registered by another program. Removing it ends its terminals and background work, ` +
          `and that program may register it again or fail.`,
        items: [
          `provider: ${t.provider}`,
          ...(t.owner_id ? [`owner: ${t.owner_id}`] : []),
          `generation: ${t.generation}`,
        ],
        itemsLabel: 'Registered by',
        confirmLabel: 'Remove target',
        onConfirm: remove,
      });
      return;
    }
    if (!armed) return setArmed(true);
    setArmed(false);
    remove();
  };
  return (
    <button
      type="button"
      className={`icon-button${armed ? ' icon-button--armed' : ''}`}
      aria-label={armed ? `Confirm remove ${t.name}` : `Remove ${t.name}`}
      title={armed ? 'Click again to remove' : 'Remove this runtime target'}
      onClick={click}
    >
      {armed ? <span className="armed-text">Remove?</span> : <IconTrash size={12} />}
    </button>
  );
}

/** How many approvals wait on this target; the dialog shows them one at a time. */
function PendingCount({ target, mini }: { target: string; mini?: boolean }) {
  const n = useApprovals((s) => s.pending.reduce((k, a) => k + (a.execution_target === target ? 1 : 0), 0));
  if (n === 0) return null;
  const label = `${n} approval${n === 1 ? '' : 's'} waiting`;
  return (
    <span
      className={`pending-count${mini ? ' pending-count--mini' : ''}`}
      role="status"
      aria-label={label}
      title={label}
    >
      {n}
    </span>
  );
}

const TargetRow = memo(function TargetRow({ t, compact }: { t: TargetInfo; compact: boolean }) {
  const openTab = (): void => focusTerminal(useLayout.getState().newTab(t.name));
  const shell = offersPane(t.flags);
  const canOpen = t.state !== 'draining' && shell;
  const runtime = t.source === 'runtime';
  const backend = useBackendView(t.backend);
  const offline = useConnection((s) => s.state === 'closed');
  const shown = shownState(t, offline);
  const details = [
    backend.line,
    sandboxMark(t.sandbox)?.description ?? '',
    t.source,
    `generation ${t.generation}`,
    t.cwd ? `cwd ${t.cwd}` : '',
    t.health?.detail ?? '',
    t.problem ?? '',
    t.cwd_problem ?? '',
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <li
      className={`target target--${shown}${compact ? ' target--compact' : ''}`}
      aria-label={t.name}
      title={compact ? `${t.name} · ${stateLabel[shown]}\n${details}` : details}
      tabIndex={-1}
      data-nav-item=""
      onKeyDown={(e) => {
        // Enter on a row (reached with the arrow keys) opens a terminal there, as its + button does.
        if (e.key === 'Enter' && e.target === e.currentTarget && canOpen) {
          e.preventDefault();
          openTab();
        }
      }}
    >
      {/* The collapsed sidebar's whole row: the backend's icon with the state dot; a click opens a terminal there. */}
      <button
        type="button"
        className="target__mini"
        aria-label={`New terminal on ${t.name}`}
        disabled={!canOpen}
        title={`${t.name} · ${stateLabel[shown]}${shell ? '' : ` · ${NO_SHELL}`}\n${details}`}
        onClick={openTab}
      >
        <BackendIcon flags={t.flags} fallback={backend.fallbackIcon} size={16} />
        <span className={`dot dot--${shown}`} aria-hidden="true" />
        <PendingCount target={t.name} mini />
      </button>
      <div className="target__line">
        <span className={`dot dot--${shown}`} aria-hidden="true" />
        <span className="target__name">{t.name}</span>
        {t.is_default && (
          <span className="tag tag--default" title="terminal.default_target">
            default
          </span>
        )}
        <PendingCount target={t.name} />
        <span className="target__spacer" />
        {compact && shown !== 'reachable' && shown !== 'active' && (
          <span className={`badge badge--${shown}`}>{stateLabel[shown]}</span>
        )}
        <span className="target__backend" title={backend.line}>
          <BackendIcon flags={t.flags} fallback={backend.fallbackIcon} size={12} />
          <span className="target__backend-label">{backend.label}</span>
        </span>
        {/* Always in sight, so a newcomer finds it; the rest of the row's actions show on hover or focus. */}
        {canOpen && (
          <button
            type="button"
            className="icon-button target__open"
            aria-label={`New terminal on ${t.name}`}
            title={`New tab on ${t.name}`}
            onClick={openTab}
          >
            <IconPlus size={12} />
          </button>
        )}
        <span className={`target__actions${canOpen ? ' target__actions--beside-open' : ''}`}>
          {!shell && (
            <span
              className="target__noshell"
              role="note"
              aria-label={`${t.name}: ${NO_SHELL}`}
              title={`${NO_SHELL}: run commands with the terminal tool or switchboard call terminal`}
            >
              <IconNoShell size={12} />
            </span>
          )}
          {runtime && (
            <button
              type="button"
              className="icon-button"
              aria-label={`Edit ${t.name}`}
              title="Edit (registers a new generation)"
              onClick={() => useDialogs.getState().openTargetForm({ mode: 'edit', target: t })}
            >
              <IconEdit size={12} />
            </button>
          )}
          {runtime && t.state !== 'draining' && (
            <button
              type="button"
              className="icon-button"
              aria-label={`Drain ${t.name}`}
              title="Drain: refuse new calls and panes; running work goes on"
              onClick={() => void call('targets.drain', { name: t.name, generation: t.generation })}
            >
              <IconDrain size={12} />
            </button>
          )}
          {runtime && <RemoveButton t={t} />}
        </span>
      </div>
      {!compact && <RowDetails t={t} shown={shown} />}
    </li>
  );
});

/** The full row's lines under the name: cwd, state and when it was checked, source, generation, problems. */
function RowDetails({ t, shown }: { t: TargetInfo; shown: Shown }) {
  return (
    <>
      <div className="target__cwd mono" title={t.cwd}>
        <bdi dir="ltr">{t.cwd ?? '—'}</bdi>
      </div>
      <div className="target__meta">
        <span className={`badge badge--${shown}`}>{stateLabel[shown]}</span>
        <SandboxBadge sandbox={t.sandbox} />
        {/* "reachable 12 s ago": when the state was last seen comes first; the generation gives way when space runs
            out. */}
        {t.health?.checked_at && <CheckedAgo at={t.health.checked_at} />}
        <span className="meta-sep">{t.source}</span>
        <span className="meta-sep mono" title={`generation ${t.generation}`}>
          gen {shortGeneration(t.generation)}
        </span>
      </div>
      {t.problem && (
        <div className="target__problem" role="status" title={t.problem}>
          {t.problem}
        </div>
      )}
      {t.cwd_problem && (
        <div className="target__problem target__problem--warn" role="status" title={t.cwd_problem}>
          {t.cwd_problem}
        </div>
      )}
    </>
  );
}

/** What the Core could not use: shown until it is fixed, since nothing else would tell the person. */
function Problems() {
  const problems = useTargets((s) => s.problems);
  if (problems.length === 0) return null;
  return (
    <div className="problems" role="alert" aria-label="Configuration problems">
      {problems.map((p) => (
        <p key={p} className="problems__line">
          {p}
        </p>
      ))}
    </div>
  );
}

/** When each target was last used: a pane open on it is now; else its latest call in Activity. */
function useLastUse(wanted: boolean): ReadonlyMap<string, number> {
  const entries = useActivity((s) => s.entries);
  const panes = useLayout((s) => s.panes);
  return useMemo(() => {
    const last = new Map<string, number>();
    if (!wanted) return last;
    for (const e of entries) {
      if (!e.execution_target) continue;
      const at = Date.parse(e.time);
      if (at > (last.get(e.execution_target) ?? 0)) last.set(e.execution_target, at);
    }
    for (const p of Object.values(panes)) last.set(p.target, Number.MAX_SAFE_INTEGER);
    return last;
  }, [wanted, entries, panes]);
}

/** The rows: as they come with a few targets; filtered, ordered and grouped for a fleet. */
function TargetList({ list, fleet }: { list: TargetInfo[]; fleet: boolean }) {
  const compact = useSettings((s) => s.compactTargets);
  const query = useSidebarView((s) => s.query);
  const groupBy = useSidebarView((s) => s.groupBy);
  const sortBy = useSidebarView((s) => s.sortBy);
  const collapsedGroups = useSidebarView((s) => s.collapsed);
  const offline = useConnection((s) => s.state === 'closed');
  const backends = useBackends((s) => s.list);
  const lastUse = useLastUse(fleet && sortBy === 'lastUse');
  const groups = useMemo((): TargetGroup[] => {
    if (!fleet) return [{ key: '', label: '', targets: list, summary: '' }];
    const shownOf = (t: TargetInfo): Shown => shownState(t, offline);
    const found = list.filter((t) => matchesTarget(t, shownOf(t), query));
    const label = (b: string): string =>
      backendView(
        b,
        backends.find((x) => x.backend === b),
        true,
      ).label;
    return groupTargets(sortTargets(found, sortBy, shownOf, lastUse), fleet ? groupBy : 'none', shownOf, label);
  }, [fleet, list, query, sortBy, groupBy, offline, backends, lastUse]);
  const found = groups.reduce((n, g) => n + g.targets.length, 0);
  const headed = fleet && groupBy !== 'none';
  return (
    <ul
      className={`target-list${compact ? ' target-list--compact' : ''}`}
      aria-label="Targets"
      onKeyDown={navigateList}
    >
      {groups.map((g) => {
        if (!headed) return g.targets.map((t) => <TargetRow key={t.name} t={t} compact={compact} />);
        const key = `${groupBy}:${g.key}`;
        const open = !collapsedGroups.includes(key);
        return (
          <li key={key} className="target-group">
            <button
              type="button"
              className="target-group__header"
              aria-expanded={open}
              data-nav-item=""
              title={`${g.label} · ${g.summary}`}
              onClick={() => useSidebarView.getState().toggleGroup(key)}
              onKeyDown={(e) => {
                if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
                  e.preventDefault();
                  useSidebarView.getState().toggleGroup(key, e.key === 'ArrowRight');
                }
              }}
            >
              <span className="target-group__chevron" aria-hidden="true">
                {open ? '▾' : '▸'}
              </span>
              <span className="target-group__label">{g.label}</span>
              <span className="target-group__summary">· {g.summary}</span>
            </button>
            {open && (
              <ul className="target-group__list" aria-label={g.label}>
                {g.targets.map((t) => (
                  <TargetRow key={t.name} t={t} compact={compact} />
                ))}
              </ul>
            )}
          </li>
        );
      })}
      {fleet && found === 0 && (
        <li className="empty" role="status">
          No target matches “{query}”.
        </li>
      )}
    </ul>
  );
}

/** More targets than this and the sidebar offers its filter, grouping and order (a few need none of it). */
export const FLEET_TOOLS_AT = 10;

export function Sidebar() {
  const list = useTargets((s) => s.list);
  const loaded = useTargets((s) => s.loaded);
  const conn = useConnection((s) => s.state);
  const collapsed = useUi((s) => s.sidebarCollapsed);
  const query = useSidebarView((s) => s.query);
  const tools = list.length > FLEET_TOOLS_AT || query !== '';
  const filter = useRef<HTMLInputElement>(null);
  return (
    <aside
      className={`sidebar${collapsed ? ' sidebar--collapsed' : ''}`}
      aria-label="Sidebar"
      data-region="sidebar"
      tabIndex={-1}
      onKeyDown={(e) => {
        // `/` anywhere in the sidebar (not while typing in a field) goes to the filter.
        if (e.key !== '/' || !tools || e.ctrlKey || e.metaKey || e.altKey || isField(e.target)) return;
        e.preventDefault();
        filter.current?.focus();
      }}
    >
      <div className="brand">
        <img src="./icon.svg" alt="" width={18} height={18} />
        <span className="brand__name">Switchboard</span>
        <span className={`dot dot--conn-${conn}`} title={conn === 'open' ? 'connected to the Core' : conn} />
        <button
          type="button"
          className="icon-button sidebar__toggle"
          aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          aria-expanded={!collapsed}
          title={`${collapsed ? 'Expand' : 'Collapse'} sidebar (${shortcutOf('toggleSidebar')})`}
          onClick={() => useUi.getState().toggleSidebar()}
        >
          <IconSidebar />
        </button>
      </div>
      <nav className="targets" aria-labelledby="targets-heading">
        <div className="section-title">
          <h2 id="targets-heading">Targets</h2>
          <span className="count">{list.length}</span>
          <button
            type="button"
            className="icon-button"
            aria-label="Add target"
            title="Add a runtime target"
            onClick={() => useDialogs.getState().openTargetForm({ mode: 'add' })}
          >
            <IconPlus />
          </button>
        </div>
        {tools && <FleetTools filter={filter} />}
        {loaded && list.length === 0 && (
          <p className="empty">
            No targets yet. Add one under <code>terminal.targets</code> in config.yaml or run{' '}
            <code>switchboard targets register</code>.
          </p>
        )}
        <Problems />
        <TargetList list={list} fleet={tools} />
      </nav>
    </aside>
  );
}

function isField(el: EventTarget): boolean {
  return el instanceof HTMLElement && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}
