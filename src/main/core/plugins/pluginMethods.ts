// The plugins' slice of the Core API: list, enable, disable and install plugin backends.
import type { MethodInput, MethodOutput } from '../../../shared/api.js';
import { SwitchboardError } from '../../../shared/errors.js';

// Placeholder until the plugin host lands: no plugins are known.
export function pluginMethods() {
  const none = (name: string): never => {
    throw new SwitchboardError('unknown_plugin', `no plugin named ${name}`, 'see: switchboard plugins list');
  };
  return {
    'plugins.list': async (_input: MethodInput<'plugins.list'>): Promise<MethodOutput<'plugins.list'>> => [],
    'plugins.enable': async (input: MethodInput<'plugins.enable'>): Promise<MethodOutput<'plugins.enable'>> => none(input.name),
    'plugins.disable': async (input: MethodInput<'plugins.disable'>): Promise<MethodOutput<'plugins.disable'>> => none(input.name),
    'plugins.install': async (input: MethodInput<'plugins.install'>): Promise<MethodOutput<'plugins.install'>> => none(input.path),
  };
}
