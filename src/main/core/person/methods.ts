// window.link: a new person link's one-time code for `switchboard open` (a person's method: Core.invoke checked who
// asks).
import type { Handlers } from '../platform/index.js';
import { CODE_TTL_MS } from './oneTimeCodes.js';
import type { PersonLinks } from './personLinks.js';

export function personMethods(deps: { links: PersonLinks }) {
  return {
    'window.link': async () => ({ code: deps.links.code(), valid_s: CODE_TTL_MS / 1000 }),
  } satisfies Partial<Handlers>;
}
