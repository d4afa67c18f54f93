// The plugins' slice of the Core API: list, enable, disable, restart and install plugin backends. Each change is a
// person's action, recorded in Activity and audit.jsonl: a plugin runs code with the powers it declares.
import type { Handlers } from '../platform/index.js';
import { whoActs, type RecordAction } from '../activity/index.js';
import type { Plugins } from './plugins.js';

export function pluginMethods(deps: { plugins: Plugins; record: RecordAction }) {
  const { plugins, record } = deps;
  return {
    'plugins.list': async () => plugins.list(),
    'plugins.enable': async ({ name }, ctx) =>
      record({ ...whoActs(ctx), tool: 'plugins.enable', summary: `enable ${name}` }, () => plugins.enable(name)),
    'plugins.disable': async ({ name }, ctx) =>
      record({ ...whoActs(ctx), tool: 'plugins.disable', summary: `disable ${name}` }, () => plugins.disable(name)),
    'plugins.restart': async ({ name }, ctx) =>
      record({ ...whoActs(ctx), tool: 'plugins.restart', summary: `restart ${name}` }, () => plugins.restart(name)),
    'plugins.install': async ({ path }, ctx) =>
      record(
        { ...whoActs(ctx), tool: 'plugins.install', summary: `install ${path}` },
        async () => plugins.install(path),
        (info) => ({ summary: `install ${info.name} from ${path}` }),
      ),
  } satisfies Partial<Handlers>;
}
