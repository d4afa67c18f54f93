// The page's one exchange with the Core over HTTP: a person link's one-time code for the person's cookie, and whether
// the page is a person's (its cookie is HttpOnly: the page cannot look at it itself).
import * as z from 'zod';

/** Where the page asks (GET) and trades its code (POST); same origin as the page. */
export const PERSON_PATH = '/person';

/** The POST's body: the code from the link's #fragment. */
export const PersonCode = z.object({ code: z.string().min(1).max(200) });
export type PersonCode = z.infer<typeof PersonCode>;

/** Both answers: whether the page is a person's now, and, when a code bought nothing, why. */
export const PersonPageState = z.object({ person: z.boolean(), problem: z.string().optional() });
export type PersonPageState = z.infer<typeof PersonPageState>;

/** What a page opened from a spent link says (one line). */
export const LINK_SPENT =
  'This link was already used or has expired: run `switchboard open` in a terminal of your own for a new one.';
