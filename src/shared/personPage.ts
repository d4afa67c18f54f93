// The page's one exchange with the Core over HTTP: a person link's one-time code for the person's cookie, and whether
// the page is a person's (its cookie is HttpOnly: the page cannot look at it itself).
import * as z from 'zod';

/** Where the page trades its code (POST); a person's page asks (GET) at `person` under its home. Same origin. */
export const PERSON_PATH = '/person';

/** The POST's body: the code from the link's #fragment. */
export const PersonCode = z.object({ code: z.string().min(1).max(200) });
export type PersonCode = z.infer<typeof PersonCode>;

/**
 * Both answers: whether the page is a person's now; for a person's page, the path it lives under from then on (`home`,
 * `/p/<random>/`: its cookie goes to nothing else); when a code bought nothing, why.
 */
export const PersonPageState = z.object({
  person: z.boolean(),
  home: z
    .string()
    .regex(/^\/p\/[\w-]+\/$/)
    .optional(),
  problem: z.string().optional(),
});
export type PersonPageState = z.infer<typeof PersonPageState>;

/** What a page opened from a spent link says (one line). */
export const LINK_SPENT =
  'This link was already used or has expired: run `switchboard open` in a terminal of your own for a new one.';
