// The changes a register, drain or remove makes to the registry document, pure: each request checked without the
// lock, then a function that changes the document read under it (or throws, having changed nothing), and the
// records it reports.
import { SwitchboardError, formatZodError } from '../../../shared/errors.js';
import { TargetName, type TargetSpec } from '../../../shared/targets.js';
import {
  Generation,
  MAX_RUNTIME_TARGETS,
  OwnerId,
  ProviderName,
  REGISTRY_FILE,
  checkGenerationSpec,
  checkOwnership,
  checkSpec,
  claimedOwner,
  newGeneration,
  retire,
  type RegistryDocument,
  type Requester,
  type SchemaFor,
} from './registryFile.js';
import { specFingerprint } from './specFingerprint.js';
import type { RuntimeRecord } from './runtimeSource.js';

export interface RegisterRequest extends Requester {
  name: string;
  spec: Record<string, unknown>;
  /** The new generation; generated when absent. */
  generation?: string | undefined;
  /** Allow replacing an existing registration (a new generation). */
  replace?: boolean | undefined;
  /** Compare-and-swap: replace only when the current generation is this one (implies replace). */
  if_generation?: string | undefined;
  /**
   * Asked under the lock just before the entry is written, with the spec it replaces (undefined for a new name, or a
   * record too broken to have one); throws to refuse the entry. What it weighs is what the write goes over, not what a
   * read before the lock saw (the CLI's sandbox weakening check).
   */
  check?: ((replaced: Readonly<Record<string, unknown>> | undefined) => void) | undefined;
}

export interface DrainRequest extends Requester {
  name: string;
  /** Drain only this generation. */
  generation?: string | undefined;
}

export interface RemoveRequest extends Requester {
  name: string;
  /** Remove only this generation: a controller tearing down an old box cannot remove its replacement. */
  generation?: string | undefined;
}

export interface RegistryChange {
  action: 'registered' | 'replaced' | 'drained' | 'removed' | 'unchanged';
  record: RuntimeRecord;
  /** The generation that was replaced. */
  previous_generation?: string;
}

/** One entry of a batch: its change, or why it was refused (nothing of it was written). */
export type EntryResult = { ok: true; change: RegistryChange } | EntryFailure;
export interface EntryFailure {
  ok: false;
  name: string;
  error: unknown;
}

/** One request's change to the document; throws (having changed nothing) when it is refused. */
export type Change = (doc: RegistryDocument, now: string) => RegistryChange;

/** What every registration of one call is checked against, read once. */
export interface RegisterContext {
  schemaFor: SchemaFor;
  references: ReadonlySet<string>;
  configNames: readonly string[];
}

/** One entry's change made, its refusal caught as that entry's result. */
export function attempt(name: string, change: () => RegistryChange): EntryResult {
  try {
    return { ok: true, change: change() };
  } catch (error) {
    return { ok: false, name, error };
  }
}

/** A registration's checks that need no lock, then the change it makes to the file (checked again there). */
export function registerChange(req: RegisterRequest, context: RegisterContext): Change {
  const name = checkName(req.name);
  const who = checkRequester(req);
  const generation = req.generation === undefined ? undefined : checkGeneration(req.generation, '--generation');
  const ifGeneration =
    req.if_generation === undefined ? undefined : checkGeneration(req.if_generation, '--if-generation');
  const spec = checkSpec(name, req.spec, context.schemaFor, { references: context.references });
  const configTwin = context.configNames.find((n) => n.toLowerCase() === name.toLowerCase());
  if (configTwin !== undefined) {
    throw new SwitchboardError(
      'registry_conflict',
      configTwin === name
        ? `"${name}" is a config target (config.yaml); a runtime target may not shadow it`
        : `"${name}" differs from the config target "${configTwin}" only in case`,
      'pick another name, or remove it from config.yaml first',
    );
  }
  const fingerprint = specFingerprint(spec as Record<string, unknown>);
  return (doc, now) => {
    const existing = doc.targets[name];
    const twin = Object.keys(doc.targets).find((n) => n !== name && n.toLowerCase() === name.toLowerCase());
    if (twin !== undefined) {
      throw new SwitchboardError(
        'registry_conflict',
        `"${name}" differs from the runtime target "${twin}" only in case`,
        'pick another name',
      );
    }
    const replacing = req.replace === true || ifGeneration !== undefined;
    const claim = claimedOwner(existing);
    const current = { ...(claim.generation ? { generation: claim.generation } : {}), ...fingerprintOf(existing) };
    if (generation !== undefined) {
      checkGenerationSpec(doc, name, generation, fingerprint, current);
      // The same spec under the generation it has now: nothing to do (a controller's retry is idempotent).
      if (existing !== undefined && generation === claim.generation && current.fingerprint === fingerprint)
        return { action: 'unchanged', record: usableOrStub(name, existing) };
    }
    if (existing !== undefined) {
      if (!replacing) {
        throw new SwitchboardError(
          'registry_conflict',
          `target "${name}" is already registered (generation ${claim.generation ?? '?'}, ` +
            `provider ${claim.provider ?? '?'})`,
          'pass --replace to register a new generation, or pick another name',
        );
      }
      checkOwnership(name, existing, who, 'replace');
      if (ifGeneration !== undefined && claim.generation !== ifGeneration) {
        throw new SwitchboardError(
          'registry_conflict',
          `target "${name}" is at generation ${claim.generation ?? '?'}, not ${ifGeneration}; nothing was changed`,
          'someone replaced it meanwhile: run `switchboard targets show` and decide again',
        );
      }
      const gen = generation ?? newGeneration();
      // Only a record too broken to have a spec gets here with its own generation: it is not replaced in place.
      if (gen === claim.generation) {
        throw new SwitchboardError(
          'registry_conflict',
          `target "${name}" is already at generation ${gen}; a replacement needs a new generation`,
          'omit --generation to get a fresh one',
        );
      }
      req.check?.(specOf(existing));
      if (current.generation && current.fingerprint)
        retire(doc, { name, generation: current.generation, fingerprint: current.fingerprint });
      const created = (existing as { created_at?: unknown }).created_at;
      const record = stored(
        spec,
        who.provider,
        who.owner_id ?? claim.owner_id ?? '',
        gen,
        typeof created === 'string' ? created : now,
        now,
      );
      doc.targets[name] = record;
      return {
        action: 'replaced',
        record: { name, ...record, spec },
        ...(claim.generation ? { previous_generation: claim.generation } : {}),
      };
    }
    if (ifGeneration !== undefined) {
      throw new SwitchboardError(
        'unknown_target',
        `target "${name}" is not registered, so it is not at generation ${ifGeneration}; nothing was changed`,
        'register it without --if-generation',
      );
    }
    req.check?.(undefined);
    if (Object.keys(doc.targets).length >= MAX_RUNTIME_TARGETS) {
      throw new SwitchboardError(
        'too_large',
        `the runtime registry already holds ${MAX_RUNTIME_TARGETS} targets`,
        'remove targets that are gone first',
      );
    }
    const record = stored(spec, who.provider, who.owner_id ?? '', generation ?? newGeneration(), now, now);
    doc.targets[name] = record;
    return { action: 'registered', record: { name, ...record, spec } };
  };
}

/** Mark a target draining (only generation G with `generation`). */
export function drainChange(req: DrainRequest): Change {
  const name = checkName(req.name);
  const who = checkRequester(req);
  const generation = req.generation === undefined ? undefined : checkGeneration(req.generation, '--generation');
  return (doc, now) => {
    const existing = existingRecord(doc, name);
    checkOwnership(name, existing, who, 'drain');
    const rec = usable(name, existing);
    if (generation !== undefined && rec.generation !== generation)
      throw staleGeneration(name, rec.generation, generation, 'drained');
    if (rec.state === 'draining') return { action: 'unchanged', record: rec };
    const next = { ...(existing as Record<string, unknown>), state: 'draining', updated_at: now };
    doc.targets[name] = next;
    return { action: 'drained', record: { ...rec, state: 'draining', updated_at: now } };
  };
}

/** Remove a target (only generation G with `generation`). */
export function removeChange(req: RemoveRequest): Change {
  const name = checkName(req.name);
  const who = checkRequester(req);
  const generation = req.generation === undefined ? undefined : checkGeneration(req.generation, '--generation');
  return (doc) => {
    const existing = existingRecord(doc, name);
    checkOwnership(name, existing, who, 'remove');
    const claim = claimedOwner(existing);
    if (generation !== undefined && claim.generation !== generation)
      throw staleGeneration(name, claim.generation ?? '?', generation, 'removed');
    const { fingerprint } = fingerprintOf(existing);
    if (claim.generation && fingerprint) retire(doc, { name, generation: claim.generation, fingerprint });
    delete doc.targets[name];
    return { action: 'removed', record: usableOrStub(name, existing) };
  };
}

function existingRecord(doc: RegistryDocument, name: string): unknown {
  const existing = doc.targets[name];
  if (existing === undefined) {
    throw new SwitchboardError('unknown_target', `no runtime target "${name}"`, 'see `switchboard targets list`');
  }
  return existing;
}

/** A stored record's spec, when it has one. */
function specOf(raw: unknown): Record<string, unknown> | undefined {
  const spec = raw && typeof raw === 'object' ? (raw as { spec?: unknown }).spec : undefined;
  return spec && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Record<string, unknown>) : undefined;
}

/** The fingerprint of a stored record's spec, when it has one. */
function fingerprintOf(raw: unknown): { fingerprint?: string } {
  const spec = specOf(raw);
  return spec ? { fingerprint: specFingerprint(spec) } : {};
}

function stored(
  spec: TargetSpec,
  provider: string,
  owner_id: string,
  generation: string,
  created_at: string,
  updated_at: string,
) {
  return {
    spec: spec as Record<string, unknown>,
    provider,
    owner_id,
    generation,
    state: 'active' as const,
    created_at,
    updated_at,
  };
}

/** The record as a RuntimeRecord, or a refusal when it is too broken to change in place. */
function usable(name: string, raw: unknown): RuntimeRecord {
  const r = raw as Partial<RuntimeRecord> | null;
  if (!r || typeof r !== 'object' || typeof r.generation !== 'string' || !r.spec || typeof r.spec !== 'object') {
    throw new SwitchboardError(
      'bad_config',
      `runtime target "${name}" is broken in ${REGISTRY_FILE}`,
      `remove it (switchboard targets remove ${name}) and register it again`,
    );
  }
  return usableOrStub(name, raw);
}

function usableOrStub(name: string, raw: unknown): RuntimeRecord {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const str = (v: unknown, d: string): string => (typeof v === 'string' ? v : d);
  return {
    name,
    spec: (r.spec && typeof r.spec === 'object' ? r.spec : { backend: '?' }) as TargetSpec,
    generation: str(r.generation, '?'),
    state: r.state === 'draining' ? 'draining' : 'active',
    provider: str(r.provider, '?'),
    owner_id: str(r.owner_id, ''),
    created_at: str(r.created_at, ''),
    updated_at: str(r.updated_at, ''),
  };
}

function staleGeneration(name: string, current: string, wanted: string, verb: string): SwitchboardError {
  return new SwitchboardError(
    'registry_conflict',
    `target "${name}" is at generation ${current}, not ${wanted}; nothing was ${verb}`,
    'a newer registration replaced the one you meant',
  );
}

function checkName(name: string): string {
  const r = TargetName.safeParse(name);
  if (!r.success)
    throw new SwitchboardError('bad_request', `invalid target name "${name.slice(0, 80)}": ${formatZodError(r.error)}`);
  return r.data;
}

function checkGeneration(g: string, flag: string): string {
  const r = Generation.safeParse(g);
  if (!r.success) throw new SwitchboardError('bad_request', `${flag}: ${formatZodError(r.error)}`);
  return r.data;
}

export function checkRequester(who: Requester): Requester {
  const p = ProviderName.safeParse(who.provider);
  if (!p.success) throw new SwitchboardError('bad_request', `--provider: ${formatZodError(p.error)}`);
  if (who.owner_id === undefined || who.owner_id === '') return { provider: p.data };
  const o = OwnerId.safeParse(who.owner_id);
  if (!o.success) throw new SwitchboardError('bad_request', `--owner-id: ${formatZodError(o.error)}`);
  return { provider: p.data, owner_id: o.data };
}
