// A plugin backend's declared fields as the running Core serves them: what `targets register` checks a spec against.
import { SwitchboardError } from '../../../shared/errors.js';
import { specSchemaOf, type SpecDeclaration } from '../../../shared/specFields.js';
import { builtinSpecs } from '../../core/backends/index.js';
import { didYouMean } from '../../core/platform/index.js';
import { coreRunning, withCore } from '../connect.js';

/** A plugin backend's declaration as the running Core serves it (undefined for a built-in, or with no Core running). */
export async function pluginDeclaration(home: string, backend: string): Promise<SpecDeclaration | undefined> {
  if (builtinSpecs.some((p) => p.backend === backend) || !coreRunning(home)) return undefined;
  const list = await withCore((c) => c.call('backends.list', {}));
  const info = list.find((b) => b.backend === backend);
  if (!info) {
    const guess = didYouMean(
      backend,
      list.map((b) => b.backend),
    );
    throw new SwitchboardError(
      'bad_request',
      `unknown backend "${backend}"${guess ? ` — did you mean "${guess}"?` : ''}`,
      `backends now: ${list.map((b) => b.backend).join(', ')} (a plugin's appear once it is enabled: ` +
        `switchboard plugins list)`,
    );
  }
  return {
    backend: info.backend,
    fields: info.fields,
    exactly_one: info.exactly_one,
    specSchema: specSchemaOf(info.backend, info.fields, info.exactly_one),
    describe: () => '',
  };
}
