// window.link: a new person link for `switchboard open` (a person's method: Core.invoke checked who asks).
import type { Handlers } from '../handlers.js';
import type { PersonLinks } from './personLinks.js';

export function personMethods(deps: { links: PersonLinks }) {
  return {
    'window.link': async () => ({ approver: deps.links.mint() }),
  } satisfies Partial<Handlers>;
}
