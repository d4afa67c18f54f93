// The runtime target registry: runtime-targets.json, changed only under its lock and published by atomic rename.
// Over 350 lines: the reader (bounded load, last-good hold, change detection) and the writers (register, drain,
// remove under the lock) share one snapshot; the file's pure rules live in registryFile.ts, the lock in lock.ts.
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  watch,
  type FSWatcher,
} from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError, formatZodError, toErrorPayload } from '../../../shared/errors.js';
import { PluginSpec, TargetName, type TargetSpec } from '../../../shared/targets.js';
import {
  atomicWriteSync,
  fsyncDir,
  refuseSymlink,
  removeLeftoverTemps,
  namingFailure,
  profileWriteError,
  FileLock,
  LOCK_TIMEOUT_MS,
} from '../platform/index.js';
import {
  Generation,
  MAX_REGISTRY_BYTES,
  MAX_RUNTIME_TARGETS,
  OwnerId,
  ProviderName,
  REGISTRY_FILE,
  builtinSchemaFor,
  checkGenerationSpec,
  checkOwnership,
  checkSpec,
  claimedOwner,
  emptyDocument,
  newGeneration,
  parseDocument,
  readRecords,
  retire,
  serializeDocument,
  type RegistryDocument,
  type Requester,
  type SchemaFor,
} from './registryFile.js';
import { specFingerprint } from './specFingerprint.js';
import type { RuntimeRecord, RuntimeSource } from './runtimeSource.js';
import { rememberedSecretReferences } from '../plugins/index.js';

export interface RegistryOptions {
  /** Spec schema per backend; default: the built-in backends, plus any backend when plugins/ holds a plugin. */
  schemaFor?: SchemaFor;
  /** Names of config targets: a runtime name may not shadow one. */
  configNames?: () => Iterable<string>;
  lockTimeoutMs?: number;
  /** Follow the file with fs.watch on its directory plus a cheap stat poll (for a long-running Core). */
  watch?: boolean;
  /** Interval of the stat poll that catches events fs.watch missed; default 1 s. */
  pollMs?: number;
}

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
type Change = (doc: RegistryDocument, now: string) => RegistryChange;

interface RegisterContext {
  references: ReadonlySet<string>;
  configNames: readonly string[];
}

/** One entry's change made, its refusal caught as that entry's result. */
function attempt(name: string, change: () => RegistryChange): EntryResult {
  try {
    return { ok: true, change: change() };
  } catch (error) {
    return { ok: false, name, error };
  }
}

interface Snapshot {
  signature: string;
  records: RuntimeRecord[];
  problems: string[];
  /** Records and problems as one string: equal ⇔ nothing a reader sees changed. */
  fingerprint: string;
}

export class Registry implements RuntimeSource {
  readonly path: string;
  private readonly lock: FileLock;
  private readonly schemaFor: SchemaFor;
  private current: Snapshot;
  private readonly listeners = new Set<() => void>();
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;

  constructor(
    readonly home: string,
    private readonly opts: RegistryOptions = {},
  ) {
    this.path = join(home, REGISTRY_FILE);
    this.lock = new FileLock(this.path, { timeoutMs: opts.lockTimeoutMs ?? LOCK_TIMEOUT_MS });
    this.schemaFor = opts.schemaFor ?? defaultSchemaFor(home);
    this.current = this.load();
    if (opts.watch) this.watch();
  }

  // ---- reading (RuntimeSource) ---------------------------------------------

  list(): RuntimeRecord[] {
    return this.current.records;
  }

  problems(): string[] {
    return [...this.current.problems];
  }

  get(name: string): RuntimeRecord | undefined {
    return this.current.records.find((r) => r.name === name);
  }

  /** One lstat when nothing changed; a re-read (and onChange) when the file's signature moved. */
  refresh(): boolean {
    if (this.signature() === this.current.signature) return false;
    const next = this.load(this.current);
    const changed = next.fingerprint !== this.current.fingerprint;
    this.current = next;
    if (changed) for (const l of this.listeners) l();
    return changed;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Follow changes made by other processes: directory events (renames) and a stat poll for missed ones. */
  watch(): void {
    if (this.watcher || this.poll) return;
    const soon = (): void => {
      this.debounce ??= setTimeout(() => {
        this.debounce = undefined;
        this.safeRefresh();
      }, 20);
    };
    try {
      // The directory, not the file: every publication replaces the file by rename.
      this.watcher = watch(this.home, { persistent: false }, (_event, file) => {
        if (file === null || file === REGISTRY_FILE) soon();
      });
      this.watcher.on('error', () => undefined);
    } catch {
      /* no watcher here: the poll and the per-dispatch refresh still see changes */
    }
    this.poll = setInterval(() => this.safeRefresh(), this.opts.pollMs ?? 1000);
    this.poll.unref();
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = undefined;
  }

  private safeRefresh(): void {
    try {
      this.refresh();
    } catch {
      /* a reader never crashes on the file; load() already turns faults into problems */
    }
  }

  private signature(): string {
    try {
      // Asked on every call: a missing file is an answer, not an exception.
      const st = lstatSync(this.path, { throwIfNoEntry: false });
      return st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.mode}` : 'missing';
    } catch {
      // unreadable is as good as missing: the next look tries again
      return 'missing';
    }
  }

  /**
   * Read and validate the file; every fault becomes a problem line, never an exception. A file that cannot be
   * trusted (half-written by hand, unparsable, from a newer Switchboard, unreadable) or a record that does not
   * validate removes nothing: what was read before stays in force until it is fixed. Otherwise a moment of
   * garbage would look like every runtime target being removed, and their containers and state would go with it.
   */
  private load(previous?: Snapshot): Snapshot {
    const before = previous?.records ?? [];
    const snap = (signature: string, records: RuntimeRecord[], problems: string[]): Snapshot => ({
      signature,
      records,
      problems,
      fingerprint: JSON.stringify([records, problems]),
    });
    /** The whole file is unusable: keep the records read before. */
    const untrusted = (signature: string, problems: string[], fault: string): Snapshot =>
      snap(signature, before, [
        ...problems,
        before.length
          ? `${fault}; the ${before.length} runtime target${before.length === 1 ? '' : 's'} read before ` +
            `stay${before.length === 1 ? 's' : ''} in force until it is fixed`
          : `${fault}; runtime targets are ignored until it is fixed`,
      ]);
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return snap('missing', [], []);
      const sig = this.signature();
      if (code === 'ELOOP') return untrusted(sig, [], `${this.path} is a symbolic link`);
      return untrusted(sig, [], `cannot read ${this.path}: ${(err as Error).message}`);
    }
    try {
      const st = fstatSync(fd);
      const sig = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.mode}`;
      if (!st.isFile()) return untrusted(sig, [], `${this.path} is not a regular file`);
      if (st.size > MAX_REGISTRY_BYTES) {
        return untrusted(
          sig,
          [],
          `${REGISTRY_FILE} is ${(st.size / 1024 / 1024).toFixed(1)} MiB, over the 1 MiB limit (trim it: ` +
            `switchboard targets remove …)`,
        );
      }
      // Read at most one byte over the limit: the file may grow between fstat and read.
      const buf = Buffer.alloc(Math.min(st.size, MAX_REGISTRY_BYTES) + 1);
      let len = 0;
      for (;;) {
        const n = readSync(fd, buf, len, buf.length - len, null);
        if (n === 0) break;
        len += n;
        if (len >= buf.length) break;
      }
      if (len > MAX_REGISTRY_BYTES) return untrusted(sig, [], `${REGISTRY_FILE} is over the 1 MiB limit`);
      const problems: string[] = [];
      if ((st.mode & 0o077) !== 0)
        problems.push(
          `${this.path} has mode ${(st.mode & 0o777).toString(8)}; it should be 600 (chmod 600 ${this.path})`,
        );
      let doc: RegistryDocument;
      try {
        doc = parseDocument(buf.subarray(0, len).toString('utf8'));
      } catch (err) {
        return untrusted(sig, problems, toErrorPayload(err).message);
      }
      const {
        records,
        problems: recordProblems,
        invalid,
      } = readRecords(doc, this.schemaFor, rememberedSecretReferences(this.home));
      // A record that no longer validates keeps its last good form (its target is not removed by a typo).
      const shown = recordProblems.map((problem) => {
        const bad = invalid.find((i) => i.problem === problem);
        const kept = bad && before.find((r) => r.name === bad.name);
        if (!kept || records.some((r) => r.name === kept.name)) return problem;
        records.push(kept);
        return (
          `${problem.replace(' and ignored:', ':').replace(' is ignored:', ' is invalid:')} — its last good ` +
          `record (generation ${kept.generation}) stays in force until it is fixed`
        );
      });
      return snap(sig, records, [...problems, ...shown]);
    } catch (err) {
      return untrusted(this.signature(), [], `cannot read ${this.path}: ${(err as Error).message}`);
    } finally {
      closeSync(fd);
    }
  }

  // ---- writing -------------------------------------------------------------

  /** Register a name, or replace it (new generation) with --replace / --if-generation. */
  async register(req: RegisterRequest): Promise<RegistryChange> {
    return this.mutate(`registering target "${req.name}"`, this.registerChange(req, this.registerContext()));
  }

  /**
   * Many registrations in one transaction under the lock (a controller bringing up a fleet): each entry gets the
   * checks one `register` makes, and its own result; an entry that is refused changes nothing and stops no other.
   */
  async registerMany(reqs: readonly RegisterRequest[]): Promise<EntryResult[]> {
    const context = this.registerContext();
    const planned = reqs.map((req): { name: string; change: Change } | EntryFailure => {
      try {
        return { name: req.name, change: this.registerChange(req, context) };
      } catch (error) {
        return { ok: false, name: req.name, error };
      }
    });
    return this.mutate(
      `registering ${reqs.length} targets`,
      (doc, now) => planned.map((p) => ('change' in p ? attempt(p.name, () => p.change(doc, now)) : p)),
      (results) => results.some((r) => r.ok && r.change.action !== 'unchanged'),
    );
  }

  /**
   * Drain or remove every target one owner registered (provider, and owner id: none means the provider's targets
   * registered without one), in one transaction; `dryRun` says what would happen and writes nothing.
   */
  async forOwner(verb: 'drain' | 'remove', req: Requester & { dryRun?: boolean }): Promise<EntryResult[]> {
    const who = checkRequester(req);
    return this.mutate(
      `${verb === 'drain' ? 'draining' : 'removing'} the targets of provider "${who.provider}"`,
      (doc, now) =>
        Object.keys(doc.targets)
          .filter((name) => {
            const claim = claimedOwner(doc.targets[name]);
            return claim.provider === who.provider && (claim.owner_id ?? '') === (who.owner_id ?? '');
          })
          .map((name) =>
            attempt(name, () => (verb === 'drain' ? this.drainChange : this.removeChange)({ ...who, name })(doc, now)),
          ),
      (results) => !req.dryRun && results.some((r) => r.ok && r.change.action !== 'unchanged'),
    );
  }

  /** What every registration of one call is checked against, read once (config names, secret-reference keys). */
  private registerContext(): RegisterContext {
    return {
      references: rememberedSecretReferences(this.home),
      configNames: [...(this.opts.configNames?.() ?? [])],
    };
  }

  /** A registration's checks that need no lock, then the change it makes to the file (checked again there). */
  private registerChange(req: RegisterRequest, context: RegisterContext): Change {
    const name = checkName(req.name);
    const who = checkRequester(req);
    const generation = req.generation === undefined ? undefined : checkGeneration(req.generation, '--generation');
    const ifGeneration =
      req.if_generation === undefined ? undefined : checkGeneration(req.if_generation, '--if-generation');
    const spec = checkSpec(name, req.spec, this.schemaFor, { references: context.references });
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

  /** Mark a target draining: new calls and panes are refused, work already running goes on. */
  async drain(req: DrainRequest): Promise<RegistryChange> {
    return this.mutate(`draining target "${req.name}"`, this.drainChange(req));
  }

  private readonly drainChange = (req: DrainRequest): Change => {
    const name = checkName(req.name);
    const who = checkRequester(req);
    const generation = req.generation === undefined ? undefined : checkGeneration(req.generation, '--generation');
    return (doc, now) => {
      const existing = this.existing(doc, name);
      checkOwnership(name, existing, who, 'drain');
      const rec = usable(name, existing);
      if (generation !== undefined && rec.generation !== generation)
        throw staleGeneration(name, rec.generation, generation, 'drained');
      if (rec.state === 'draining') return { action: 'unchanged', record: rec };
      const next = { ...(existing as Record<string, unknown>), state: 'draining', updated_at: now };
      doc.targets[name] = next;
      return { action: 'drained', record: { ...rec, state: 'draining', updated_at: now } };
    };
  };

  /** Remove a target (only generation G with `generation`). Running work on it stays until it ends. */
  async remove(req: RemoveRequest): Promise<RegistryChange> {
    return this.mutate(`removing target "${req.name}"`, this.removeChange(req));
  }

  private readonly removeChange = (req: RemoveRequest): Change => {
    const name = checkName(req.name);
    const who = checkRequester(req);
    const generation = req.generation === undefined ? undefined : checkGeneration(req.generation, '--generation');
    return (doc) => {
      const existing = this.existing(doc, name);
      checkOwnership(name, existing, who, 'remove');
      const claim = claimedOwner(existing);
      if (generation !== undefined && claim.generation !== generation)
        throw staleGeneration(name, claim.generation ?? '?', generation, 'removed');
      const { fingerprint } = fingerprintOf(existing);
      if (claim.generation && fingerprint) retire(doc, { name, generation: claim.generation, fingerprint });
      delete doc.targets[name];
      return { action: 'removed', record: usableOrStub(name, existing) };
    };
  };

  private existing(doc: RegistryDocument, name: string): unknown {
    const existing = doc.targets[name];
    if (existing === undefined) {
      throw new SwitchboardError('unknown_target', `no runtime target "${name}"`, 'see `switchboard targets list`');
    }
    return existing;
  }

  /**
   * Read-modify-write under the lock: leftovers of killed writers removed, the current file read
   * (never trusted from cache), `change` applied, the result published atomically.
   */
  private async mutate<T = RegistryChange>(
    doing: string,
    change: (doc: RegistryDocument, now: string) => T,
    /** Whether the result changed the document (a dry run never does). */
    wrote: (result: T) => boolean = (r) => (r as RegistryChange).action !== 'unchanged',
  ): Promise<T> {
    namingFailure({ path: this.home, action: 'create', doing }, () => ensureDir(this.home));
    refuseSymlink(this.path);
    const held = await this.lock.acquire().catch((err: unknown) => {
      throw profileWriteError(err, { path: this.lock.lockDir, action: 'create', doing });
    });
    let result: T;
    try {
      removeLeftoverTemps(this.path);
      const doc = this.readForWrite();
      result = change(doc, new Date().toISOString());
      if (wrote(result)) {
        const text = serializeDocument(doc);
        if (Buffer.byteLength(text) > MAX_REGISTRY_BYTES) {
          throw new SwitchboardError(
            'too_large',
            `the runtime registry would grow over 1 MiB`,
            'remove targets that are gone first',
          );
        }
        // Paranoia against a holder judged stale (frozen for a minute): never publish without the lock.
        if (!held.stillHeld())
          throw new SwitchboardError(
            'registry_busy',
            'lost the registry lock while writing; nothing was changed',
            'try again',
          );
        atomicWriteSync(this.path, text, 0o600, doing);
      }
    } finally {
      held.release();
    }
    this.refresh();
    return result;
  }

  /** The file as it is now, for a writer: a missing file is empty; a broken one is refused, never overwritten. */
  private readForWrite(): RegistryDocument {
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return emptyDocument();
      if (code === 'ELOOP')
        throw new SwitchboardError(
          'not_permitted',
          `${this.path} is a symbolic link; Switchboard refuses to follow it`,
          'replace it with a regular file (or delete it)',
        );
      throw err;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new SwitchboardError('bad_config', `${this.path} is not a regular file`, 'delete it');
      if (st.size > MAX_REGISTRY_BYTES)
        throw new SwitchboardError(
          'too_large',
          `${REGISTRY_FILE} is over the 1 MiB limit; refusing to change it`,
          'trim it by hand or delete it',
        );
      const buf = Buffer.alloc(st.size);
      let len = 0;
      while (len < st.size) {
        const n = readSync(fd, buf, len, st.size - len, null);
        if (n === 0) break;
        len += n;
      }
      // A broken file is refused rather than overwritten: its valid records must not be lost.
      return parseDocument(buf.subarray(0, len).toString('utf8'));
    } finally {
      closeSync(fd);
    }
  }
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

function checkRequester(who: Requester): Requester {
  const p = ProviderName.safeParse(who.provider);
  if (!p.success) throw new SwitchboardError('bad_request', `--provider: ${formatZodError(p.error)}`);
  if (who.owner_id === undefined || who.owner_id === '') return { provider: p.data };
  const o = OwnerId.safeParse(who.owner_id);
  if (!o.success) throw new SwitchboardError('bad_request', `--owner-id: ${formatZodError(o.error)}`);
  return { provider: p.data, owner_id: o.data };
}

/** The profile directory exists and is private (0700). */
function ensureDir(home: string): void {
  if (!existsSync(home)) {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    fsyncDir(join(home, '..'));
  }
  try {
    const st = statSync(home);
    if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) chmodSync(home, 0o700);
  } catch {
    /* not ours to fix */
  }
}

/** Built-in backends; other backend names only when a plugin is installed (else a typo would register). */
export function defaultSchemaFor(home: string): SchemaFor {
  return (backend) => {
    const builtin = builtinSchemaFor(backend);
    if (builtin) return builtin;
    try {
      // The plugin's own schema checks the spec when the Core resolves the target.
      if (readdirSync(join(home, 'plugins')).length > 0) return PluginSpec;
    } catch {
      /* no plugins */
    }
    return undefined;
  };
}
