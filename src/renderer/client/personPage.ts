// Whether this page is the person's window, settled once before it connects. A person link's one-time code leaves
// the address bar first thing and is traded once for the person's cookie (HttpOnly: this script never holds the
// secret); a page without a good code asks whether its cookie makes it the person's. The token leaves the address bar
// too, kept for this tab so the page can dial again.
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

/** One request to PERSON_PATH; undefined when the Core's answer could not be read. */
async function ask(token: string, code?: string): Promise<PersonPageState | undefined> {
  try {
    const res = await fetch(PERSON_PATH, {
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
  // Before anything else: the code and the token leave the address bar (and so the tab's session and any later entry
  // in the history; the visit itself a browser has already recorded, which is why the code works once).
  history.replaceState(null, '', '/');
  const traded = code ? await ask(token, code) : undefined;
  if (traded?.person) return (settled = traded);
  // No code, or one that bought nothing: a cookie from an earlier link may still make this page the person's.
  const known = await ask(token);
  if (known?.person) return (settled = { person: true });
  const problem = code ? (traded?.problem ?? LINK_SPENT) : known ? undefined : 'the Core did not answer';
  return (settled = { person: false, ...(problem ? { problem } : {}) });
}

/** What settlePersonPage found. */
export function personPage(): PersonPageState {
  return settled;
}
