// `switchboard targets register NAME --backend B …`: add a runtime target, or replace it with a new generation.
import type { Command } from 'commander';
import type { SpecFieldInfo } from '../../../shared/specFields.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { switchboardHome } from '../../core/home.js';
import { builtinSpecs } from '../../core/backends/builtinSpecs.js';
import type { SpecDeclaration } from '../../../shared/specFields.js';
import { specSchemaOf } from '../../../shared/specFields.js';
import { didYouMean } from '../../core/config/didYouMean.js';
import { coreRunning, withCore } from '../connect.js';
import { defaultSchemaFor } from '../../core/registry/registry.js';
import { checkSpec, keySchema, secretReferenceKeys } from '../../core/registry/registryFile.js';
import { action } from '../output.js';
import { openRegistry, reportChange, requesterOptions } from './targetsRegistry.js';

interface RegisterOptions {
  backend: string;
  set: string[];
  provider: string;
  ownerId?: string;
  generation?: string;
  replace?: boolean;
  ifGeneration?: string;
  json?: boolean;
  /** The declared field flags (--host, --image …), by commander's camelCase name. */
  [flag: string]: unknown;
}

/** A declared flag: its name on the command line, commander's option key, and the fields (per backend) it sets. */
interface FieldFlag {
  flag: string;
  option: string;
  fields: Array<{ backend: string; field: SpecFieldInfo }>;
}

/** Every flag the backends declare, once each, in declaration order (common fields come with every backend). */
export function fieldFlags(providers: readonly SpecDeclaration[] = builtinSpecs): FieldFlag[] {
  const byFlag = new Map<string, FieldFlag>();
  for (const p of providers) {
    for (const field of p.fields) {
      if (!field.flag) continue;
      const option = field.flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
      const entry = byFlag.get(field.flag) ?? { flag: field.flag, option, fields: [] };
      entry.fields.push({ backend: p.backend, field });
      byFlag.set(field.flag, entry);
    }
  }
  return [...byFlag.values()];
}

/** A flag's or --set's text as the value its field takes. */
export function fieldValue(field: SpecFieldInfo, what: string, text: string): unknown {
  switch (field.type) {
    case 'number':
      if (field.integer && !/^\d+$/.test(text))
        throw new SwitchboardError('bad_request', `${what} must be a whole number, not "${text}"`);
      if (!/^-?\d+(\.\d+)?$/.test(text))
        throw new SwitchboardError('bad_request', `${what} must be a number, not "${text}"`);
      return Number(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false')
        throw new SwitchboardError('bad_request', `${what} must be true or false, not "${text}"`);
      return text === 'true';
    case 'list':
    case 'map':
    case 'sandbox':
      return jsonOrText(text);
    default:
      return text;
  }
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // not JSON: the value is the text as given
    return text;
  }
}

/**
 * `--set key=value` for a key no backend declares (a plugin's): the text when the key takes a string, else a JSON
 * value.
 */
export function setValue(schema: Parameters<typeof keySchema>[0], key: string, text: string): unknown {
  const field = keySchema(schema, key);
  if (field?.safeParse(text).success) return text;
  return jsonOrText(text);
}

/** The spec the flags describe; pure, so the mapping is tested by table. */
export function specFromOptions(
  opts: RegisterOptions,
  home: string,
  providers: readonly SpecDeclaration[] = builtinSpecs,
): Record<string, unknown> {
  const provider = providers.find((p) => p.backend === opts.backend);
  const spec: Record<string, unknown> = { backend: opts.backend };
  for (const f of fieldFlags(providers)) {
    const v = opts[f.option];
    if (v === undefined) continue;
    const own = f.fields.find((x) => x.backend === opts.backend)?.field;
    if (provider && !own) {
      const keys = [...new Set(f.fields.map((x) => x.field.key))].join(', ');
      throw new SwitchboardError(
        'bad_request',
        `${f.flag} sets ${keys}, which a ${opts.backend} target does not have`,
        `keys of a ${opts.backend} target: ${provider.fields.map((x) => x.key).join(', ')}`,
      );
    }
    // An unknown backend (a plugin, or a typo the registry will name) takes the key the flag sets elsewhere.
    const field = own ?? f.fields[0]!.field;
    spec[field.key] = fieldValue(field, f.flag, String(v));
  }
  const schema = provider?.specSchema ?? defaultSchemaFor(home)(opts.backend);
  for (const kv of opts.set) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new SwitchboardError('bad_request', '--set takes key=value (a key, then =, then the value)');
    const key = kv.slice(0, eq);
    if (key === 'backend')
      throw new SwitchboardError('bad_request', '--set cannot change the backend', 'use --backend');
    const field = provider?.fields.find((x) => x.key === key);
    spec[key] = field ? fieldValue(field, `--set ${key}`, kv.slice(eq + 1)) : setValue(schema, key, kv.slice(eq + 1));
  }
  return spec;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** The help of a declared flag: the key it sets per backend, and the first field's help. */
function flagHelp(f: FieldFlag): string {
  const keys = [...new Set(f.fields.map((x) => x.field.key))];
  const owners =
    f.fields.length === builtinSpecs.length ? '' : ` (${[...new Set(f.fields.map((x) => x.backend))].join(', ')})`;
  return `${keys.join(' / ')}${owners}: ${f.fields[0]!.field.help}`;
}

export function targetsRegisterCommand(targets: Command): void {
  const cmd = targets
    .command('register')
    .description('register a runtime target (or replace it with a new generation)')
    .argument('<name>', 'the target name')
    .requiredOption('--backend <backend>', `${builtinSpecs.map((p) => p.backend).join(', ')} or a plugin backend`);
  for (const f of fieldFlags()) cmd.option(`${f.flag} <value>`, flagHelp(f));
  cmd
    .option('--set <key=value>', 'any other spec key (repeatable)', collect, [] as string[])
    .option('--replace', 'replace an existing registration with a new generation')
    .option('--if-generation <generation>', 'replace only if the current generation is this one (compare-and-swap)');
  requesterOptions(cmd, 'the new generation (default: a fresh one)');
  cmd.action(
    action(async (name: string, opts: RegisterOptions) => {
      const home = switchboardHome();
      // A plugin backend's fields are known to the running Core that loaded it; without one the spec is checked when it
      // is used.
      const plugin = await pluginDeclaration(home, opts.backend);
      const spec = specFromOptions(opts, home, plugin ? [...builtinSpecs, plugin] : builtinSpecs);
      if (plugin) checkSpec(name, spec, () => plugin.specSchema, { references: secretReferenceKeys([plugin]) });
      const registry = openRegistry(home);
      try {
        const change = await registry.register({
          name,
          spec,
          provider: opts.provider,
          owner_id: opts.ownerId,
          generation: opts.generation,
          replace: opts.replace,
          if_generation: opts.ifGeneration,
        });
        reportChange(change, opts.json);
      } finally {
        registry.close();
      }
    }),
  );
}

/** A plugin backend's declaration as the running Core serves it (undefined for a built-in, or with no Core running). */
async function pluginDeclaration(home: string, backend: string): Promise<SpecDeclaration | undefined> {
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
