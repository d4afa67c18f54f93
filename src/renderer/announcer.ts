// What the window's polite live region says, for a person who does not watch every corner of it: a new request for
// approval, a target turning unreachable, a background process that finished. Each event is said once: the store
// changes are compared with what came before, never re-read whole.
import { create } from 'zustand';
import type { ProcessInfo } from '../shared/api.js';
import type { PendingApproval } from '../shared/approvals.js';
import type { TargetInfo } from '../shared/targets.js';
import { redact } from '../shared/redact.js';
import { useApprovals } from './store/approvals.js';
import { useProcesses } from './store/processes.js';
import { useTargets } from './store/targets.js';
import { shownState } from './targetHealth.js';

/** The region keeps this many lines: a screen reader reads each once as it is added; older ones are history. */
const KEEP = 8;
/** Commands are cut to this many characters in a sentence that is read aloud (the dialog has them whole). */
const SAID_CHARS = 160;

const cut = (text: string): string => (text.length > SAID_CHARS ? `${text.slice(0, SAID_CHARS - 1)}…` : text);

/** Requests not announced before (`said` holds their ids and is added to); oldest first. */
export function approvalAnnouncements(pending: readonly PendingApproval[], said: Set<string>): string[] {
  const out: string[] = [];
  for (const a of pending) {
    if (said.has(a.id)) continue;
    said.add(a.id);
    if (a.kind === 'host_key') {
      const host = a.host_key ? `${a.host_key.host}:${a.host_key.port}` : 'its host';
      out.push(`Approval needed: trust the host key of ${host} for target ${a.execution_target}?`);
      continue;
    }
    const who = a.client ? `An agent (${a.client})` : 'An agent';
    const verb = a.subject === 'path' ? 'change the file' : a.subject === 'code' ? 'run code' : 'run';
    const what = a.subject === 'code' ? '' : ` ${cut(redact(a.command ?? ''))}`;
    out.push(`Approval needed: ${who} wants to ${verb}${what} on ${a.execution_target}.`);
  }
  return out;
}

/**
 * Targets whose state became unreachable in this change, new ones included: the Core batches its target events, so a
 * target added while the window is open may arrive with its first probe's answer already in (never seen "checking").
 * The caller leaves out the first list, which is where the window starts, not news.
 */
export function unreachableAnnouncements(before: readonly TargetInfo[], after: readonly TargetInfo[]): string[] {
  const was = new Map(before.map((t) => [t.name, shownState(t)]));
  return after
    .filter((t) => was.get(t.name) !== 'unreachable' && shownState(t) === 'unreachable')
    .map((t) => `Target ${t.name} is unreachable${t.problem ? `: ${cut(t.problem)}` : ''}.`);
}

/** Processes that were running before this change and are not now. */
export function finishedAnnouncements(
  before: Readonly<Record<string, ProcessInfo>>,
  after: Readonly<Record<string, ProcessInfo>>,
): string[] {
  const out: string[] = [];
  for (const p of Object.values(after)) {
    if (before[p.session_id]?.status !== 'running' || p.status === 'running') continue;
    const how =
      p.status === 'exited' ? `exited with ${p.exit_code ?? 'no code'}` : p.status === 'killed' ? 'was killed' : 'lost';
    out.push(`Background process on ${p.execution_target} ${how}: ${cut(redact(p.command))}.`);
  }
  return out;
}

interface Announcement {
  id: number;
  text: string;
}

export const useAnnouncements = create<{ lines: Announcement[] }>(() => ({ lines: [] }));
let nextId = 1;

function say(texts: readonly string[]): void {
  if (texts.length === 0) return;
  const added = texts.map((text) => ({ id: nextId++, text }));
  useAnnouncements.setState((s) => ({ lines: [...s.lines, ...added].slice(-KEEP) }));
}

/**
 * Listens to the stores from now on. What was there when the window loaded is the starting point, not news: a request
 * already waiting is announced (it still needs an answer), a target already down or a process already ended is not.
 */
export function startAnnouncer(): () => void {
  const said = new Set<string>();
  say(approvalAnnouncements(useApprovals.getState().pending, said));
  let targetsLoaded = useTargets.getState().loaded;
  const offs = [
    useApprovals.subscribe((s, prev) => {
      if (s.pending !== prev.pending) say(approvalAnnouncements(s.pending, said));
    }),
    useTargets.subscribe((s, prev) => {
      if (s.list === prev.list) return;
      // The first list is the starting point.
      if (targetsLoaded) say(unreachableAnnouncements(prev.list, s.list));
      targetsLoaded = s.loaded;
    }),
    useProcesses.subscribe((s, prev) => {
      if (s.byId !== prev.byId) say(finishedAnnouncements(prev.byId, s.byId));
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}
