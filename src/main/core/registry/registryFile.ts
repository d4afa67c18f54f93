// The format of runtime-targets.json and its pure rules: bounded parsing, per-record validation, ownership,
// generations.
// Over 380 lines: the file's format and every pure rule over it, kept as one contract read by readers and writers.
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { SwitchboardError, formatZodError } from '../../../shared/errors.js';
import { PluginSpec, TargetName, type TargetSpec } from '../../../shared/targets.js';
import { builtinSpec, builtinSpecs, secretReferenceKeys } from '../backends/index.js';
import { didYouMean } from '../platform/index.js';
import { schemaKeys } from '../config/index.js';
import type { RuntimeRecord } from './runtimeSource.js';
import { findSecret } from './secrets.js';

export const REGISTRY_FILE = 'runtime-targets.json';
export const REGISTRY_VERSION = 1;
/** Bounds a reader enforces before trusting the file (a runaway controller must not take the Core down). */
export const MAX_REGISTRY_BYTES = 1024 * 1024;
export const MAX_RUNTIME_TARGETS = 1024;
/**
 * How many retired generations the file remembers (oldest forgotten first): a generation retired more than this many
 * retirements ago may be registered again with another spec. Approvals stay bound to the spec's fingerprint even then.
 */
export const MAX_RETIRED_GENERATIONS = 1024;

export const ProviderName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'a provider is 1-64 of A-Z a-z 0-9 . _ - and starts with a letter or digit',
  );
export const OwnerId = z
  .string()
  .max(256, 'an owner id is at most 256 characters')
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'an owner id has no control characters');
/** Opaque, but never `#` (it separates name and generation in a runtime identity). */
export const Generation = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    'a generation is 1-64 of A-Z a-z 0-9 . _ : - and starts with a letter or digit',
  );

const Timestamp = z.string().min(1).max(64);

/** One record as stored; the spec is checked separately by its backend's schema. */
const StoredRecord = z.strictObject({
  spec: z.record(z.string(), z.unknown()),
  provider: ProviderName,
  owner_id: OwnerId,
  generation: Generation,
  state: z.enum(['active', 'draining']),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type StoredRecord = z.infer<typeof StoredRecord>;

/** A generation that was replaced or removed, and the fingerprint of the spec it named (specFingerprint). */
const RetiredGeneration = z.strictObject({
  name: TargetName,
  generation: Generation,
  fingerprint: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});
export type RetiredGeneration = z.infer<typeof RetiredGeneration>;

/**
 * The file: a version, records by name in registration order (unknown records stay as they are), and the generations
 * retired from them, oldest first, so that a (name, generation) pair names one spec for ever.
 */
export interface RegistryDocument {
  version: number;
  targets: Record<string, unknown>;
  retired: RetiredGeneration[];
}

/** The schema of a backend's spec, or undefined when no such backend is known. */
export type SchemaFor = (backend: string) => z.ZodType | undefined;

export const builtinSchemaFor: SchemaFor = (backend) => builtinSpec(backend)?.specSchema;

export function newGeneration(): string {
  return 'r' + randomBytes(6).toString('hex');
}

export function emptyDocument(): RegistryDocument {
  return { version: REGISTRY_VERSION, targets: {}, retired: [] };
}

export function serializeDocument(doc: RegistryDocument): string {
  const { retired, ...rest } = doc;
  return JSON.stringify(retired.length ? { ...rest, retired } : rest, null, 2) + '\n';
}

/** Remember a retired generation (once), forgetting the oldest past MAX_RETIRED_GENERATIONS. */
export function retire(doc: RegistryDocument, entry: RetiredGeneration): void {
  const kept = doc.retired.filter((r) => r.name !== entry.name || r.generation !== entry.generation);
  doc.retired = [...kept, entry].slice(-MAX_RETIRED_GENERATIONS);
}

/**
 * Refuse a registration that would give a (name, generation) pair another spec than the one it named before (while it
 * is the current record, or since it was retired). The same spec again is allowed.
 */
export function checkGenerationSpec(
  doc: RegistryDocument,
  name: string,
  generation: string,
  fingerprint: string,
  current: { generation?: string; fingerprint?: string },
): void {
  const before =
    current.generation === generation
      ? current.fingerprint
      : doc.retired.find((r) => r.name === name && r.generation === generation)?.fingerprint;
  if (before === undefined || before === fingerprint) return;
  throw new SwitchboardError(
    'registry_conflict',
    `target "${name}" generation ${generation} was registered before with another spec; ` +
      `a generation names one spec for ever`,
    'omit --generation to get a fresh one (approvals given to the old spec do not carry over)',
  );
}

/** Parse the whole file; throws (with a one-line reason) only when nothing of it can be trusted. */
export function parseDocument(text: string): RegistryDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // V8's message may quote the file's first bytes, and the file may hold anything: say where, never what.
    const at = /at position (\d+)/.exec((err as Error).message)?.[1];
    const where =
      at !== undefined ? `at ${lineColumn(text, Number(at))}` : text.trim() ? 'near its start' : 'it is empty';
    throw new SwitchboardError('bad_config', `${REGISTRY_FILE} is not valid JSON (${where})`, `fix or delete the file`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new SwitchboardError('bad_config', `${REGISTRY_FILE} must hold a JSON object`, 'fix or delete the file');
  }
  const v = value as Record<string, unknown>;
  if (v.version !== REGISTRY_VERSION) {
    throw new SwitchboardError(
      'bad_config',
      `${REGISTRY_FILE} has version ${JSON.stringify(v.version)}; this Switchboard reads version ${REGISTRY_VERSION}`,
      'upgrade Switchboard, or fix or delete the file',
    );
  }
  const targets = v.targets;
  if (!targets || typeof targets !== 'object' || Array.isArray(targets)) {
    throw new SwitchboardError(
      'bad_config',
      `${REGISTRY_FILE}: "targets" must be an object of records by name`,
      'fix or delete the file',
    );
  }
  // JSON.parse keeps the last of two equal keys without a word; two records of one name are a broken file.
  const twice = duplicateJsonKey(text);
  if (twice !== undefined) {
    throw new SwitchboardError(
      'bad_config',
      `${REGISTRY_FILE} holds the key ${JSON.stringify(twice.slice(0, 64))} twice in one object`,
      'remove one of them',
    );
  }
  return { version: REGISTRY_VERSION, targets: targets as Record<string, unknown>, retired: retiredOf(v.retired) };
}

/**
 * The retired generations as stored; an entry that does not validate is dropped (an approval still binds to the spec's
 * fingerprint).
 */
function retiredOf(raw: unknown): RetiredGeneration[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .flatMap((r) => {
      const p = RetiredGeneration.safeParse(r);
      return p.success ? [p.data] : [];
    })
    .slice(-MAX_RETIRED_GENERATIONS);
}

/** "line L, column C" of a character offset, for error lines that must not quote the text. */
function lineColumn(text: string, offset: number): string {
  let line = 1;
  let last = -1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return `line ${line}, column ${offset - last}`;
}

/**
 * The first key that some object of a valid JSON text holds twice, in one linear pass (strings are skipped with
 * their escapes; a key is a string followed by a colon).
 */
export function duplicateJsonKey(text: string): string | undefined {
  const stack: Array<Set<string> | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(undefined);
    else if (c === '}' || c === ']') stack.pop();
    else if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      let j = i + 1;
      while (j < text.length && (text[j] === ' ' || text[j] === '\n' || text[j] === '\r' || text[j] === '\t')) j++;
      const keys = stack[stack.length - 1];
      if (text[j] === ':' && keys) {
        const key = JSON.parse(text.slice(start, i + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
    }
  }
  return undefined;
}

/** A spec checked by its backend's schema, key material and passwords refused. Throws bad_request. */
export function checkSpec(
  name: string,
  spec: Record<string, unknown>,
  schemaFor: SchemaFor,
  /** `references`: secret-reference keys beyond the built-ins' (the ones installed plugins declared). */
  opts: { allowUnknownBackend?: boolean; references?: ReadonlySet<string> } = {},
): TargetSpec {
  const refs = new Set([...secretReferenceKeys(), ...(opts.references ?? [])]);
  const secret = findSecret(spec, refs);
  if (secret) {
    throw new SwitchboardError(
      'bad_request',
      `target "${name}": refused — ${secret} would store a secret in the registry`,
      `the registry holds routing fields only: give a key as the path of its file, ` +
        `a password as the name of an environment variable (${[...refs].join(', ')})`,
    );
  }
  // Path fields (a key file's path) are checked by the backend's schema: one line, never the file's content.
  const backend = spec.backend;
  if (typeof backend !== 'string' || !backend)
    throw new SwitchboardError(
      'bad_request',
      `target "${name}" has no backend`,
      `pass --backend ${builtinSpecs.map((p) => p.backend).join('|')}|<plugin>`,
    );
  let schema = schemaFor(backend);
  if (!schema) {
    if (!opts.allowUnknownBackend) {
      const names = builtinSpecs.map((p) => p.backend);
      const guess = didYouMean(backend, names);
      throw new SwitchboardError(
        'bad_request',
        `unknown backend "${backend}"${guess ? ` — did you mean "${guess}"?` : ''}`,
        `built-in backends are ${names.join(', ')}; a plugin backend needs its plugin under plugins/`,
      );
    }
    schema = PluginSpec;
  }
  const parsed = schema.safeParse(spec);
  if (!parsed.success)
    throw new SwitchboardError(
      'bad_request',
      `invalid ${backend} target "${name}": ${describeSpecError(parsed.error, schema)}`,
    );
  return parsed.data as TargetSpec;
}

/** Zod's first issue, with a did-you-mean for unknown keys. */
function describeSpecError(err: z.ZodError, schema: z.ZodType): string {
  const issue = err.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    const known = specKeys(schema);
    const key = issue.keys[0] ?? '';
    const guess = didYouMean(key, known);
    return `unknown key "${key}"${guess ? ` — did you mean "${guess}"?` : ''} (keys: ${known.join(', ')})`;
  }
  return formatZodError(err);
}

/** The keys an object schema declares (empty for anything else). */
export function specKeys(schema: z.ZodType): string[] {
  return schemaKeys(schema);
}

/** The schema of one key of an object schema (through refinements), if it declares one. */
export function keySchema(schema: z.ZodType | undefined, key: string): z.ZodType | undefined {
  let s: unknown = schema;
  for (let i = 0; i < 5 && s; i++) {
    const shape = (s as { shape?: Record<string, z.ZodType> }).shape;
    if (shape) return shape[key];
    const def = (s as { def?: { in?: unknown; innerType?: unknown; schema?: unknown } }).def;
    s = def?.in ?? def?.innerType ?? def?.schema;
  }
  return undefined;
}

/** A stored record turned into a usable one, or the reason it cannot be used. */
export function validateRecord(
  name: string,
  raw: unknown,
  schemaFor: SchemaFor,
  references?: ReadonlySet<string>,
): RuntimeRecord | string {
  const n = TargetName.safeParse(name);
  if (!n.success)
    return `runtime target ${JSON.stringify(name.slice(0, 80))} has an invalid name: ${formatZodError(n.error)}`;
  const r = StoredRecord.safeParse(raw);
  if (!r.success) return `runtime target "${name}" is invalid and ignored: ${formatZodError(r.error)}`;
  try {
    const spec = checkSpec(name, r.data.spec, schemaFor, {
      allowUnknownBackend: true,
      ...(references ? { references } : {}),
    });
    return { name, spec, ...pick(r.data) };
  } catch (err) {
    return `runtime target "${name}" is ignored: ${(err as Error).message}`;
  }
}

function pick(r: StoredRecord): Omit<RuntimeRecord, 'name' | 'spec'> {
  return {
    generation: r.generation,
    state: r.state,
    provider: r.provider,
    owner_id: r.owner_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** Every usable record of a document (bounded), and one problem line per record that is not. */
export function readRecords(
  doc: RegistryDocument,
  schemaFor: SchemaFor,
  references?: ReadonlySet<string>,
): { records: RuntimeRecord[]; problems: string[]; invalid: Array<{ name: string; problem: string }> } {
  const records: RuntimeRecord[] = [];
  const problems: string[] = [];
  /** Names whose record is there but does not validate (a reader may keep what it read before for them). */
  const invalid: Array<{ name: string; problem: string }> = [];
  const names = Object.keys(doc.targets);
  const folded = new Map<string, string>();
  for (const name of names.slice(0, MAX_RUNTIME_TARGETS)) {
    const same = folded.get(name.toLowerCase());
    if (same !== undefined) {
      problems.push(`runtime target "${name}" is ignored: its name differs from "${same}" only in case`);
      continue;
    }
    folded.set(name.toLowerCase(), name);
    const r = validateRecord(name, doc.targets[name], schemaFor, references);
    if (typeof r === 'string') {
      problems.push(r);
      invalid.push({ name, problem: r });
    } else records.push(r);
  }
  if (names.length > MAX_RUNTIME_TARGETS) {
    problems.push(
      `${REGISTRY_FILE} holds ${names.length} targets, over the limit of ${MAX_RUNTIME_TARGETS}; ` +
        `the ${names.length - MAX_RUNTIME_TARGETS} last are ignored`,
    );
  }
  return { records, problems, invalid };
}

/** Who asks for a change: a provider and, optionally, which of its owners. */
export interface Requester {
  provider: string;
  owner_id?: string | undefined;
}

/** What ownership a stored record claims, read leniently (a broken record has none). */
export function claimedOwner(raw: unknown): { provider?: string; owner_id?: string; generation?: string } {
  if (!raw || typeof raw !== 'object') return {};
  const r = raw as Record<string, unknown>;
  return {
    ...(typeof r.provider === 'string' ? { provider: r.provider } : {}),
    ...(typeof r.owner_id === 'string' ? { owner_id: r.owner_id } : {}),
    ...(typeof r.generation === 'string' ? { generation: r.generation } : {}),
  };
}

/**
 * Provider ownership: only the provider that registered a name may replace, drain or remove it;
 * when the record names an owner, only that owner. A record too broken to claim a provider is anyone's.
 */
export function checkOwnership(name: string, raw: unknown, who: Requester, verb: 'replace' | 'drain' | 'remove'): void {
  const claim = claimedOwner(raw);
  if (claim.provider === undefined) return;
  if (claim.provider !== who.provider) {
    throw new SwitchboardError(
      'not_permitted',
      `target "${name}" belongs to provider "${claim.provider}"; provider "${who.provider}" may not ${verb} it`,
      `only "${claim.provider}" may; pass ` +
        `--provider ${claim.provider}${claim.owner_id ? ' and its --owner-id' : ''} if you act for it`,
    );
  }
  if (claim.owner_id && claim.owner_id !== who.owner_id) {
    throw new SwitchboardError(
      'not_permitted',
      `target "${name}" belongs to owner "${claim.owner_id}" of provider ` +
        `"${claim.provider}"; ${who.owner_id ? `owner "${who.owner_id}"` : 'a caller without --owner-id'} may ` +
        `not ${verb} it`,
      `pass --owner-id ${claim.owner_id} if you act for that owner`,
    );
  }
}
