// Parses config.yaml into resolved target specs; every mistake becomes one line naming the key and target.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { LineCounter, isScalar, parseDocument, visit, type Document } from 'yaml';
import * as z from 'zod';
import { SwitchboardError, formatZodError } from '../../../shared/errors.js';
import { TargetName, type TargetSpec } from '../../../shared/targets.js';
import { didYouMean } from '../platform/index.js';
import { envNamePattern } from '../backends/index.js';

export interface ApprovalsConfig {
  mode: 'ask' | 'deny' | 'off';
  timeoutSec: number;
  /** Names of the Core's variables commands get although they look like credentials (see backends/shell/commandEnv). */
  envPassthrough: string[];
}

export interface Config {
  defaultTarget: string;
  timeoutSec: number;
  /**
   * terminal.pane_keep: seconds a window's terminal outlives the window (a reload resumes it); 0 closes it with the
   * window.
   */
  paneKeepSec: number;
  /** Config targets by name, in file order. */
  targets: Map<string, { spec: TargetSpec; generation: string }>;
  approvals: ApprovalsConfig;
  /** The raw `approvals` section, for the approvals module to read its own keys from. */
  approvalsRaw: Record<string, unknown>;
}

/** What a config loader needs to know about backends: the schema of each backend name. */
export type SpecSchemas = ReadonlyMap<string, z.ZodType>;

export const DEFAULT_TIMEOUT_SEC = 180;
export const DEFAULT_PANE_KEEP_SEC = 300;
/**
 * How long a call waits for a person's approval: under the 60 s after which MCP clients give up by default (the SDK's
 * request timeout, Codex's tool_timeout_sec), so an agent hears "nobody answered" rather than its own timeout, with
 * room left for the command to run. Clients that restart their timeout on progress (docs/mcp.md) can wait longer.
 */
export const DEFAULT_APPROVAL_TIMEOUT_SEC = 50;
/**
 * The longest duration any setting may hold: a day (Node's timers overflow past ~24.8 days, and nothing needs more).
 */
export const MAX_DURATION_SEC = 86_400;
/** Bounds a reader enforces before parsing: a runaway generator must not block the Core. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
export const MAX_CONFIG_TARGETS = 1024;

const topLevelKeys = ['terminal', 'approvals', 'plugins'] as const;
const terminalOwnKeys = ['default_target', 'timeout', 'targets', 'backend', 'pane_keep'];
const envPassthroughName = z
  .string()
  .regex(
    envNamePattern,
    'approvals.env_passthrough lists variable names such as OPENAI_API_KEY (no values, no patterns)',
  );
const ApprovalsSection = z.looseObject({
  mode: z.enum(['ask', 'deny', 'off']).optional(),
  env_passthrough: z.array(envPassthroughName).max(256).optional(),
  timeout: z
    .number()
    .int()
    .positive()
    .max(MAX_DURATION_SEC, `approvals.timeout is at most ${MAX_DURATION_SEC} seconds (a day)`)
    .optional(),
});

/** The config a profile without config.yaml gets: one local target in the home directory. */
export function defaultConfig(): Config {
  const spec: TargetSpec = { backend: 'local', cwd: homedir() };
  return {
    defaultTarget: 'local',
    timeoutSec: DEFAULT_TIMEOUT_SEC,
    paneKeepSec: DEFAULT_PANE_KEEP_SEC,
    targets: new Map([['local', { spec, generation: specGeneration(spec) }]]),
    approvals: { mode: 'ask', timeoutSec: DEFAULT_APPROVAL_TIMEOUT_SEC, envPassthrough: [] },
    approvalsRaw: {},
  };
}

/** Config targets' generation: a hash of the resolved spec, so an edit is a new runtime identity. */
export function specGeneration(spec: TargetSpec): string {
  return 'c' + createHash('sha256').update(stableJson(spec)).digest('hex').slice(0, 11);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => keyOrder(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Keys every spec field is named with: lowercase letters and `_`. */
const plainKey = /^[a-z_]*$/;

/**
 * The order of stableJson's keys: localeCompare's, which every generation so far was hashed with. Two plain keys sort
 * the same by their code units, and are compared so: localeCompare would map in ICU's collation tables (about 2 MB the
 * Core then holds) for the keys of every config target. Any other key is compared as before.
 */
export function keyOrder(a: string, b: string): number {
  if (plainKey.test(a) && plainKey.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}

function fail(message: string, hint?: string): never {
  throw new SwitchboardError('bad_config', `config.yaml: ${message}`, hint);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Keys a backend's schema accepts (for inheritance and did-you-mean). */
export function schemaKeys(schema: z.ZodType): string[] {
  let s: unknown = schema;
  // Unwrap refinements/pipes down to the object shape.
  for (let i = 0; i < 5 && s; i++) {
    const def = (s as { def?: { type?: string; in?: unknown; innerType?: unknown; schema?: unknown } }).def;
    if ((s as { shape?: unknown }).shape) break;
    s = def?.in ?? def?.innerType ?? def?.schema;
  }
  const shape = (s as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** The first key that a mapping holds twice, with where its second copy starts. */
function duplicateKey(doc: Document): { key: string; offset: number | undefined } | undefined {
  let found: { key: string; offset: number | undefined } | undefined;
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const k = isScalar(pair.key) ? String(pair.key.value) : JSON.stringify(pair.key);
        if (seen.has(k)) {
          found = { key: k.slice(0, 80), offset: isScalar(pair.key) ? pair.key.range?.[0] : undefined };
          return visit.BREAK;
        }
        seen.add(k);
      }
      return undefined;
    },
  });
  return found;
}

/** Parse config.yaml text. Throws SwitchboardError('bad_config') with one clear line. */
export function parseConfig(text: string, schemas: SpecSchemas): Config {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_CONFIG_BYTES)
    fail(
      `the file is ${(bytes / 1024 / 1024).toFixed(1)} MiB, over the 1 MiB limit`,
      'a config holds a few targets; programs that create many register them as runtime targets',
    );
  const lineCounter = new LineCounter();
  // yaml's own uniqueKeys check compares every key with every other (quadratic); duplicateKey() is linear.
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: false, lineCounter });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = lineCounter.linePos(e.pos[0]).line;
    fail(`${line ? `line ${line}: ` : ''}${e.message.split('\n')[0]}`);
  }
  const dup = duplicateKey(doc);
  if (dup) {
    const line = dup.offset === undefined ? 0 : lineCounter.linePos(dup.offset).line;
    fail(`${line ? `line ${line}: ` : ''}map keys must be unique ("${dup.key}" is there twice)`);
  }
  const root: unknown = doc.toJS() ?? {};
  if (!isRecord(root)) fail('the top level must be a mapping (terminal:, approvals:)');
  for (const key of Object.keys(root)) {
    if (!(topLevelKeys as readonly string[]).includes(key)) {
      const guess = didYouMean(key, topLevelKeys);
      fail(`unknown top-level key "${key}"${guess ? ` — did you mean "${guess}"?` : ''}`);
    }
  }
  const terminal = root.terminal ?? {};
  if (!isRecord(terminal)) fail('terminal: must be a mapping');

  const allSpecKeys = new Set<string>();
  for (const schema of schemas.values()) for (const k of schemaKeys(schema)) allSpecKeys.add(k);
  for (const key of Object.keys(terminal)) {
    if (terminalOwnKeys.includes(key) || allSpecKeys.has(key)) continue;
    const guess = didYouMean(key, [...terminalOwnKeys, ...allSpecKeys]);
    fail(`unknown key "${key}" in terminal${guess ? ` — did you mean "${guess}"?` : ''}`);
  }
  const timeoutSec = terminal.timeout === undefined ? DEFAULT_TIMEOUT_SEC : Number(terminal.timeout);
  if (!Number.isInteger(timeoutSec) || timeoutSec <= 0) fail('terminal.timeout must be a whole number of seconds');
  if (timeoutSec > MAX_DURATION_SEC)
    fail(`terminal.timeout is ${timeoutSec} seconds; it is at most ${MAX_DURATION_SEC} (a day)`);
  const paneKeepSec = terminal.pane_keep === undefined ? DEFAULT_PANE_KEEP_SEC : Number(terminal.pane_keep);
  if (!Number.isInteger(paneKeepSec) || paneKeepSec < 0 || paneKeepSec > MAX_DURATION_SEC) {
    fail(
      `terminal.pane_keep must be a whole number of seconds from 0 to ${MAX_DURATION_SEC}`,
      "0 closes a window's terminals when the window goes",
    );
  }

  // Keys under `terminal` other than its own are inherited by every target whose backend knows them.
  const inherited: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(terminal)) if (!terminalOwnKeys.includes(k)) inherited[k] = v;

  const rawTargets: Record<string, unknown> = {};
  if (terminal.targets !== undefined) {
    if (!isRecord(terminal.targets)) fail('terminal.targets must be a mapping of name → target');
    Object.assign(rawTargets, terminal.targets);
  } else if (terminal.backend !== undefined) {
    // Legacy single-backend form: `terminal.backend: ssh` with its keys beside it.
    rawTargets.default = { backend: terminal.backend };
  } else {
    rawTargets.local = { backend: 'local' };
  }

  const names = Object.keys(rawTargets);
  if (names.length > MAX_CONFIG_TARGETS)
    fail(
      `${names.length} targets, over the limit of ${MAX_CONFIG_TARGETS}`,
      'programs that create many targets register them as runtime targets',
    );
  const targets = new Map<string, { spec: TargetSpec; generation: string }>();
  const folded = new Map<string, string>();
  for (const [name, raw] of Object.entries(rawTargets)) {
    const nameOk = TargetName.safeParse(name);
    if (!nameOk.success) fail(`target "${name}": ${nameOk.error.issues[0]?.message ?? 'bad name'}`);
    // Names that differ only in case would be one target to a person reading a list, and two to Switchboard.
    const same = folded.get(name.toLowerCase());
    if (same) fail(`targets "${same}" and "${name}" differ only in case`, 'rename one of them');
    folded.set(name.toLowerCase(), name);
    if (!isRecord(raw)) fail(`terminal.targets.${name} must be a mapping with a backend`);
    const backend = raw.backend ?? terminal.backend;
    if (typeof backend !== 'string')
      fail(`terminal.targets.${name}: missing "backend"`, `one of ${[...schemas.keys()].join(', ')}`);
    const schema = schemas.get(backend);
    if (!schema) {
      const guess = didYouMean(backend, [...schemas.keys()]);
      fail(
        `terminal.targets.${name}: unknown backend "${backend}"${guess ? ` — did you mean "${guess}"?` : ''}`,
        `known backends: ${[...schemas.keys()].join(', ')}`,
      );
    }
    const known = schemaKeys(schema);
    for (const key of Object.keys(raw)) {
      if (known.length > 0 && !known.includes(key)) {
        const guess = didYouMean(key, known);
        fail(
          `unknown key "${key}" in target "${name}" (backend ${backend})${guess ? ` — did you mean "${guess}"?` : ''}`,
        );
      }
    }
    const merged: Record<string, unknown> = { backend };
    for (const [k, v] of Object.entries(inherited)) if (known.includes(k)) merged[k] = v;
    Object.assign(merged, raw);
    const parsed = schema.safeParse(merged);
    if (!parsed.success) fail(`target "${name}": ${formatZodError(parsed.error)}`);
    const spec = parsed.data as TargetSpec;
    targets.set(name, { spec, generation: specGeneration(spec) });
  }

  let defaultTarget: string;
  if (terminal.default_target !== undefined) {
    if (typeof terminal.default_target !== 'string' || !targets.has(terminal.default_target)) {
      const guess =
        typeof terminal.default_target === 'string'
          ? didYouMean(terminal.default_target, [...targets.keys()])
          : undefined;
      fail(
        `terminal.default_target "${String(terminal.default_target)}" is not a configured ` +
          `target${guess ? ` — did you mean "${guess}"?` : ''}`,
      );
    }
    defaultTarget = terminal.default_target;
  } else {
    defaultTarget = targets.has('local') ? 'local' : (targets.keys().next().value ?? 'local');
  }

  const approvalsParsed = ApprovalsSection.safeParse(root.approvals ?? {});
  if (!approvalsParsed.success) fail(`approvals: ${formatZodError(approvalsParsed.error)}`);
  const approvalsRaw = approvalsParsed.data as Record<string, unknown>;
  return {
    defaultTarget,
    timeoutSec,
    paneKeepSec,
    targets,
    approvals: {
      mode: approvalsParsed.data.mode ?? 'ask',
      timeoutSec: approvalsParsed.data.timeout ?? DEFAULT_APPROVAL_TIMEOUT_SEC,
      envPassthrough: approvalsParsed.data.env_passthrough ?? [],
    },
    approvalsRaw,
  };
}
