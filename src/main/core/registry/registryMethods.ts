// The sidebar's add / edit / drain / remove: Core API methods over the runtime registry, acting as provider `ui`.
import { SwitchboardError } from '../../../shared/errors.js';
import type { CoreExtension } from '../core.js';
import { Registry, type RegistryChange } from './registry.js';

const who = { provider: 'ui' } as const;

/**
 * A person at the window may drain or remove any runtime target: ownership keeps programs from trampling
 * each other, and the person has the same authority the CLI gives with --provider/--owner-id.
 */
function ownerOf(registry: Registry, name: string): { provider: string; owner_id?: string } {
  registry.refresh();
  const rec = registry.list().find((r) => r.name === name);
  return rec ? { provider: rec.provider, ...(rec.owner_id ? { owner_id: rec.owner_id } : {}) } : who;
}

function result(c: RegistryChange): { action: string; name: string; generation: string } {
  return { action: c.action, name: c.record.name, generation: c.record.generation };
}

export const registryMethods: CoreExtension = (core) => {
  const registry = core.runtime;
  if (!(registry instanceof Registry)) return;
  const configNames = (): string[] => [...core.config.config.targets.keys()];
  core.handle('targets.register', async ({ name, spec, replace, if_generation }) => {
    if (configNames().includes(name)) {
      throw new SwitchboardError('registry_conflict', `"${name}" is a config target (config.yaml); edit it there`, 'pick another name for a runtime target');
    }
    const change = await registry.register({ ...who, name, spec, replace, if_generation });
    registry.refresh();
    return result(change);
  });
  core.handle('targets.drain', async ({ name, generation }) => {
    const change = await registry.drain({ ...ownerOf(registry, name), name, generation });
    registry.refresh();
    return result(change);
  });
  core.handle('targets.remove', async ({ name, generation }) => {
    const change = await registry.remove({ ...ownerOf(registry, name), name, generation });
    registry.refresh();
    return result(change);
  });
};
