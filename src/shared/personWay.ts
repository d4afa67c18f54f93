// How a person was known on the connection a person's action came in on; said by every audit line of one.
import * as z from 'zod';

/**
 * window: the Electron window's own IPC channel; link: a page showing the cookie a person link's one-time code bought;
 * terminal: a CLI process at a terminal of its own, outside every agent sandbox (transport/approverCheck.ts).
 */
export const PersonWay = z.enum(['window', 'link', 'terminal']);
export type PersonWay = z.infer<typeof PersonWay>;
/** The ways by name, for code that says one (a way is not the `terminal` tool, whose name it shares). */
export const personWays = PersonWay.enum;
