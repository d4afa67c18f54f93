// `switchboard targets register NAME --backend B …`: add a runtime target, or replace it with a new generation.
import type { Command } from 'commander';
import { SwitchboardError } from '../../../shared/errors.js';
import { switchboardHome } from '../../core/core.js';
import { defaultSchemaFor } from '../../core/registry/registry.js';
import { keySchema, specKeys } from '../../core/registry/registryFile.js';
import { action } from '../output.js';
import { openRegistry, reportChange, requesterOptions } from './targetsRegistry.js';

interface RegisterOptions {
  backend: string;
  host?: string;
  port?: string;
  user?: string;
  key?: string;
  cwd?: string;
  image?: string;
  container?: string;
  timeout?: string;
  set: string[];
  provider: string;
  ownerId?: string;
  generation?: string;
  replace?: boolean;
  ifGeneration?: string;
  json?: boolean;
}

/** Flag → spec key; a flag whose key the backend does not have is refused with a clear line. */
const flagKeys: Array<[keyof RegisterOptions, string, string]> = [
  ['host', '--host', 'ssh_host'],
  ['port', '--port', 'ssh_port'],
  ['user', '--user', 'ssh_user'],
  ['key', '--key', 'ssh_key'],
  ['image', '--image', 'docker_image'],
  ['container', '--container', 'docker_container'],
  ['cwd', '--cwd', 'cwd'],
  ['timeout', '--timeout', 'timeout'],
];

function wholeNumber(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new SwitchboardError('bad_request', `${flag} must be a whole number, not "${text}"`);
  return Number(text);
}

/** `--set key=value`: the text as is when the key takes a string, else a JSON value (number, boolean, list). */
export function setValue(schema: Parameters<typeof keySchema>[0], key: string, text: string): unknown {
  const field = keySchema(schema, key);
  if (field?.safeParse(text).success) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The spec the flags describe; pure, so the mapping is tested by table. */
export function specFromOptions(opts: RegisterOptions, home: string): Record<string, unknown> {
  const schema = defaultSchemaFor(home)(opts.backend);
  const known = schema ? specKeys(schema) : [];
  const spec: Record<string, unknown> = { backend: opts.backend };
  for (const [opt, flag, key] of flagKeys) {
    const v = opts[opt];
    if (v === undefined) continue;
    if (known.length > 0 && !known.includes(key)) {
      throw new SwitchboardError('bad_request', `${flag} sets ${key}, which a ${opts.backend} target does not have`, `keys of a ${opts.backend} target: ${known.join(', ')}`);
    }
    spec[key] = key === 'ssh_port' || key === 'timeout' ? wholeNumber(flag, String(v)) : v;
  }
  for (const kv of opts.set) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new SwitchboardError('bad_request', '--set takes key=value (a key, then =, then the value)');
    const key = kv.slice(0, eq);
    if (key === 'backend') throw new SwitchboardError('bad_request', '--set cannot change the backend', 'use --backend');
    spec[key] = setValue(schema, key, kv.slice(eq + 1));
  }
  return spec;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function targetsRegisterCommand(targets: Command): void {
  const cmd = targets
    .command('register')
    .description('register a runtime target (or replace it with a new generation)')
    .argument('<name>', 'the target name')
    .requiredOption('--backend <backend>', 'local, ssh, docker or a plugin backend')
    .option('--host <host>', 'ssh_host')
    .option('--port <port>', 'ssh_port')
    .option('--user <user>', 'ssh_user')
    .option('--key <path>', 'ssh_key: the path of a private key file (never the key itself)')
    .option('--cwd <dir>', 'the directory commands start in')
    .option('--image <image>', 'docker_image')
    .option('--container <container>', 'docker_container')
    .option('--timeout <seconds>', 'default command timeout')
    .option('--set <key=value>', 'any other spec key (repeatable)', collect, [] as string[])
    .option('--replace', 'replace an existing registration with a new generation')
    .option('--if-generation <generation>', 'replace only if the current generation is this one (compare-and-swap)');
  requesterOptions(cmd, 'the new generation (default: a fresh one)');
  cmd.action(action(async (name: string, opts: RegisterOptions) => {
    const home = switchboardHome();
    const registry = openRegistry(home);
    try {
      const change = await registry.register({
        name,
        spec: specFromOptions(opts, home),
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
  }));
}
