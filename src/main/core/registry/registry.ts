// The runtime target registry: runtime-targets.json, changed only under its lock and published by atomic rename.
// The reader (change detection, watching) and the writers (register, drain, remove under the lock) share one
// snapshot; reading the file is registryRead.ts, the changes a request makes registryChanges.ts, the file's pure
// rules registryFile.ts, the lock lock.ts.
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import { PluginSpec } from '../../../shared/targets.js';
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
  MAX_REGISTRY_BYTES,
  REGISTRY_FILE,
  builtinSchemaFor,
  claimedOwner,
  serializeDocument,
  type RegistryDocument,
  type Requester,
  type SchemaFor,
} from './registryFile.js';
import type { RuntimeRecord, RuntimeSource } from './runtimeSource.js';
import { rememberedSecretReferences } from '../plugins/index.js';
import { loadRegistry, fileSignature, readForWrite, type RegistrySnapshot } from './registryRead.js';
import {
  attempt,
  checkRequester,
  drainChange,
  registerChange,
  removeChange,
  type Change,
  type DrainRequest,
  type EntryFailure,
  type EntryResult,
  type RegisterContext,
  type RegisterRequest,
  type RegistryChange,
  type RemoveRequest,
} from './registryChanges.js';

export type {
  DrainRequest,
  EntryFailure,
  EntryResult,
  RegisterRequest,
  RegistryChange,
  RemoveRequest,
} from './registryChanges.js';

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

export class Registry implements RuntimeSource {
  readonly path: string;
  private readonly lock: FileLock;
  private readonly schemaFor: SchemaFor;
  private current: RegistrySnapshot;
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
    this.current = loadRegistry(this.path, this.home, this.schemaFor);
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
    if (fileSignature(this.path) === this.current.signature) return false;
    const next = loadRegistry(this.path, this.home, this.schemaFor, this.current);
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

  // ---- writing -------------------------------------------------------------

  /** Register a name, or replace it (new generation) with --replace / --if-generation. */
  async register(req: RegisterRequest): Promise<RegistryChange> {
    return this.mutate(`registering target "${req.name}"`, registerChange(req, this.registerContext()));
  }

  /**
   * Many registrations in one transaction under the lock (a controller bringing up a fleet): each entry gets the
   * checks one `register` makes, and its own result; an entry that is refused changes nothing and stops no other.
   */
  async registerMany(reqs: readonly RegisterRequest[]): Promise<EntryResult[]> {
    const context = this.registerContext();
    const planned = reqs.map((req): { name: string; change: Change } | EntryFailure => {
      try {
        return { name: req.name, change: registerChange(req, context) };
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
            attempt(name, () => (verb === 'drain' ? drainChange : removeChange)({ ...who, name })(doc, now)),
          ),
      (results) => !req.dryRun && results.some((r) => r.ok && r.change.action !== 'unchanged'),
    );
  }

  /** What every registration of one call is checked against, read once (config names, secret-reference keys). */
  private registerContext(): RegisterContext {
    return {
      schemaFor: this.schemaFor,
      references: rememberedSecretReferences(this.home),
      configNames: [...(this.opts.configNames?.() ?? [])],
    };
  }

  /** Mark a target draining: new calls and panes are refused, work already running goes on. */
  async drain(req: DrainRequest): Promise<RegistryChange> {
    return this.mutate(`draining target "${req.name}"`, drainChange(req));
  }

  /** Remove a target (only generation G with `generation`). Running work on it stays until it ends. */
  async remove(req: RemoveRequest): Promise<RegistryChange> {
    return this.mutate(`removing target "${req.name}"`, removeChange(req));
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
      const doc = readForWrite(this.path);
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
