// The plugins' slice of the Core API: list, enable, disable, restart and install plugin backends.
import type { Handlers } from '../handlers.js';
import type { Plugins } from './plugins.js';

export function pluginMethods(deps: { plugins: Plugins }) {
  return {
    'plugins.list': async () => deps.plugins.list(),
    'plugins.enable': async ({ name }) => deps.plugins.enable(name),
    'plugins.disable': async ({ name }) => deps.plugins.disable(name),
    'plugins.restart': async ({ name }) => deps.plugins.restart(name),
    'plugins.install': async ({ path }) => deps.plugins.install(path),
  } satisfies Partial<Handlers>;
}
