// The person's cookie: the lasting secret a page got for a person link's one-time code. A browser sends a host's
// cookies to every port of it: the name (by the Core's port) keeps two Cores' apart, and the Path (the profile's page
// path, core/person/personLinks.ts `home`) keeps the cookie from any other server on the host.
import type { IncomingMessage } from 'node:http';

export function personCookieName(port: number): string {
  return `switchboard_person_${port}`;
}

/**
 * The Set-Cookie header for `secret`: no script reads it (HttpOnly), no other site's request carries it (Strict), only
 * requests under `path` do, and it ends with the browser's session (no Expires).
 */
export function personSetCookie(port: number, secret: string, path: string): string {
  return `${personCookieName(port)}=${secret}; HttpOnly; SameSite=Strict; Path=${path}`;
}

/** The Cookie header a Node client sends to the Core at `url` to act as a person's page (tests, a person's program). */
export function personCookieHeader(url: string, secret: string): string {
  return `${personCookieName(Number(new URL(url).port))}=${secret}`;
}

/** The values of this Core's person cookie in a request (a browser may send more than one of a name). */
export function personCookies(req: Pick<IncomingMessage, 'headers'>, port: number): string[] {
  const name = personCookieName(port);
  const values: string[] = [];
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) values.push(pair.slice(at + 1).trim());
  }
  return values;
}
