// `switchboard targets register NAME --backend B …`: add a runtime target, or replace it with a new generation.
import type { Command } from 'commander';
import type { SpecFieldInfo, SpecDeclaration } from '../../../shared/specFields.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { switchboardHome } from '../../core/platform/index.js';
import { builtinSpecs, secretReferenceKeys } from '../../core/backends/index.js';
import { defaultSchemaFor, checkSpec, keySchema } from '../../core/registry/index.js';
import { action } from '../output.js';
import { openRegistry, reportChange, requesterOptions } from './targetsRegistry.js';
import { registerFrom } from './targetsRegisterFrom.js';
import { pluginDeclaration } from './pluginDeclaration.js';
import { consentToWeakening, sandboxKeys, weakeningCheck, weakeningsOf } from './weakeningConsent.js';

export interface RegisterOptions {
  backend?: string;
  from?: string;
  set: string[];
  provider: string;
  ownerId?: string;
  generation?: string;
  replace?: boolean;
  ifGeneration?: string;
  json?: boolean;
  /** Do not ask before registering into a weaker sandbox: the person has read what weakens. */
  yes?: boolean;
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
  if (opts.backend === undefined)
    throw new SwitchboardError('bad_request', 'a target needs --backend', 'or register many with --from FILE');
  const backend = opts.backend;
  const provider = providers.find((p) => p.backend === backend);
  const spec: Record<string, unknown> = { backend };
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
  const schema = provider?.specSchema ?? defaultSchemaFor(home)(backend);
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
    .argument('[name]', 'the target name (none with --from)')
    .option('--backend <backend>', `${builtinSpecs.map((p) => p.backend).join(', ')} or a plugin backend`)
    .option('--from <file>', 'register many targets from a file (- for stdin): JSON lines or a YAML list');
  for (const f of fieldFlags()) cmd.option(`${f.flag} <value>`, flagHelp(f));
  cmd
    .option('--set <key=value>', 'any other spec key (repeatable)', collect, [] as string[])
    .option('--replace', 'replace an existing registration with a new generation')
    .option('--if-generation <generation>', 'replace only if the current generation is this one (compare-and-swap)')
    .option('--yes', 'do not ask before a weaker sandbox: you have read what weakens (a person at a terminal only)');
  requesterOptions(cmd, 'the new generation (default: a fresh one)');
  cmd.action(
    action(async (name: string | undefined, opts: RegisterOptions) => {
      const home = switchboardHome();
      if (opts.from !== undefined) {
        refuseBesideFrom(name, opts);
        return registerFrom(home, opts.from, opts);
      }
      if (name === undefined)
        throw new SwitchboardError('bad_request', 'name the target to register', 'or register many with --from FILE');
      // A plugin backend's fields are known to the running Core that loaded it; without one the spec is checked when it
      // is used.
      const plugin = opts.backend === undefined ? undefined : await pluginDeclaration(home, opts.backend);
      const spec = specFromOptions(opts, home, plugin ? [...builtinSpecs, plugin] : builtinSpecs);
      if (plugin) checkSpec(name, spec, () => plugin.specSchema, { references: secretReferenceKeys([plugin]) });
      const registry = openRegistry(home);
      try {
        // A weaker sandbox than the one replaced (or the default) needs a person's yes first.
        const keys = sandboxKeys(spec.backend, plugin);
        const weakenings = weakeningsOf(registry, name, spec, keys);
        const asks = weakenings.length ? [{ name, weakenings, provider: opts.provider, owner_id: opts.ownerId }] : [];
        const [consent] = await consentToWeakening(home, asks, opts);
        if (consent && !consent.confirmed) throw consent.error;
        const change = await registry.register({
          name,
          spec,
          provider: opts.provider,
          owner_id: opts.ownerId,
          generation: opts.generation,
          replace: opts.replace,
          if_generation: opts.ifGeneration,
          check: weakeningCheck(name, spec, keys, consent ? weakenings : []),
        });
        reportChange(change, opts.json);
      } finally {
        registry.close();
      }
    }),
  );
}

/** --from takes every target from its input: a name, a spec flag or a per-target option beside it is a mistake. */
function refuseBesideFrom(name: string | undefined, opts: RegisterOptions): void {
  const beside = [
    name !== undefined ? `a name (${name})` : '',
    opts.backend !== undefined ? '--backend' : '',
    opts.set.length ? '--set' : '',
    opts.generation !== undefined ? '--generation' : '',
    opts.ifGeneration !== undefined ? '--if-generation' : '',
    ...fieldFlags()
      .filter((f) => opts[f.option] !== undefined)
      .map((f) => f.flag),
  ].filter(Boolean);
  if (beside.length)
    throw new SwitchboardError(
      'bad_request',
      `--from takes every target from its input; ${beside.join(', ')} cannot go with it`,
      'put name, spec, generation or if_generation in each entry',
    );
}
