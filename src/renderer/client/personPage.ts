// Whether this page is the person's window, settled once before it connects. A person link's one-time code leaves
// the address bar first thing and is traded once for the person's cookie (HttpOnly: this script never holds the
// secret) and the page's home, where the cookie goes; a reloaded page asks whether its cookie still makes it the
// person's. The token leaves the address bar too, kept for this tab so a viewer's page can dial again.
import { LINK_SPENT, PERSON_PATH, PersonPageState } from '../../shared/personPage.js';

const TOKEN_KEY = 'switchboard.token';

let settled: PersonPageState = { person: false };

/** The token: from the page's own path (/s/<token>/) on its first load, then from this tab's storage. */
export function pageToken(): string {
  const m = /^\/s\/([^/]+)\//.exec(window.location.pathname);
  if (m) sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]!));
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

/** The link's code, from the #fragment (`#code=…`). */
function linkCode(): string | undefined {
  const m = /(?:^#|&)code=([^&]+)/.exec(window.location.hash);
  return m ? decodeURIComponent(m[1]!) : undefined;
}

/** A person's page's home, from its own address (a reload): `/p/<random>/`. */
function homeInAddress(): string | undefined {
  return /^\/p\/[\w-]+\//.exec(window.location.pathname)?.[0];
}

/** One request to the Core about this page; undefined when its answer could not be read. */
async function ask(path: string, token: string, code?: string): Promise<PersonPageState | undefined> {
  try {
    const res = await fetch(path, {
      method: code ? 'POST' : 'GET',
      cache: 'no-store',
      credentials: 'same-origin',
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(code ? { 'content-type': 'application/json' } : {}),
      },
      ...(code ? { body: JSON.stringify({ code }) } : {}),
    });
    const state = PersonPageState.safeParse(await res.json());
    return state.success ? state.data : undefined;
  } catch {
    // The Core went away as the page loaded: the page cannot be shown as the person's.
    return undefined;
  }
}

/** Settle who this page is; call once, before anything connects. */
export async function settlePersonPage(): Promise<PersonPageState> {
  if (window.switchboard) return (settled = { person: true });
  const code = linkCode();
  const token = pageToken();
  const home = homeInAddress();
  // Before anything else: the code and the token leave the address bar (and so the tab's session and any later entry
  // in the history; the visit itself a browser has already recorded, which is why the code works once).
  history.replaceState(null, '', home ?? '/');
  // What an earlier version kept here: the lasting secret lives only in the cookie now.
  sessionStorage.removeItem('switchboard.approver');
  if (code) {
    const traded = await ask(PERSON_PATH, token, code);
    if (!traded?.person || !traded.home) return (settled = { person: false, problem: traded?.problem ?? LINK_SPENT });
    // The page's home from now on: its cookie goes there, and nowhere else on this host.
    history.replaceState(null, '', traded.home);
    return (settled = traded);
  }
  if (!home) return (settled = { person: false });
  // A reload of a person's page: its cookie says whether it still is one.
  const known = await ask(`${home}${PERSON_PATH.slice(1)}`, token);
  if (known?.person) return (settled = { person: true, home });
  return (settled = { person: false, ...(known ? {} : { problem: 'the Core did not answer' }) });
}

/** What settlePersonPage found. */
export function personPage(): PersonPageState {
  return settled;
}
