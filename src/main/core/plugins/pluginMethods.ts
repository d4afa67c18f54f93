// The plugins' slice of the Core API: list, enable, disable and install plugin backends.
import type { Handlers } from '../handlers.js';
import type { Plugins } from './plugins.js';

export function pluginMethods(deps: { plugins: Plugins }) {
  return {
    'plugins.list': async () => deps.plugins.list(),
    'plugins.enable': async ({ name }) => deps.plugins.enable(name),
    'plugins.disable': async ({ name }) => deps.plugins.disable(name),
    'plugins.install': async ({ path }) => deps.plugins.install(path),
  } satisfies Partial<Handlers>;
}
