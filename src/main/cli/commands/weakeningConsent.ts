// Registering a runtime target into a weaker sandbox is a person's act: what each entry weakens, who may do it (a
// person at a terminal of their own, judged by the running Core, or by this CLI itself when none runs), their [y/N],
// the audit line, and the check under the registry's lock that holds the write to what they confirmed.
import { mkdirSync } from 'node:fs';
import { SwitchboardError, toErrorPayload } from '../../../shared/errors.js';
import { redact } from '../../../shared/redact.js';
import type { SpecDeclaration } from '../../../shared/specFields.js';
import { builtinSpec } from '../../core/backends/index.js';
import { AuditLog } from '../../core/activity/index.js';
import type { Registry } from '../../core/registry/index.js';
import { specWeakening, weakeningSummary } from '../../core/sandbox/index.js';
import { coreRunning, withCore } from '../connect.js';
import { askYes, atTerminal, selfPersonRefusal } from '../personAtTerminal.js';

/** The Core method a person's CLI asks before it writes a weaker sandbox (shared/api.ts). */
const METHOD = 'targets.allowWeakening';

/**
 * The keys of a backend's spec that hold a sandbox setting: its fields of type sandbox. A backend whose fields are not
 * known here (a plugin's, with no Core running) has its `sandbox` key weighed, should it have one.
 */
export function sandboxKeys(backend: unknown, plugin: SpecDeclaration | undefined): string[] {
  const declaration = plugin ?? (typeof backend === 'string' ? builtinSpec(backend) : undefined);
  if (!declaration) return ['sandbox'];
  return declaration.fields.filter((f) => f.type === 'sandbox').map((f) => f.key);
}

/** What a registration weakens, against the registry as read now (the lock's check weighs it again). */
export function weakeningsOf(
  registry: Registry,
  name: string,
  spec: Readonly<Record<string, unknown>>,
  keys: readonly string[],
): string[] {
  return specWeakening(registry.get(name)?.spec as Record<string, unknown> | undefined, spec, keys);
}

/** The refusal of a weakening nobody (or no person) confirmed: what weakens, and the way out. */
export function weakeningRefusal(
  name: string,
  weakenings: readonly string[],
  why: string | undefined,
): SwitchboardError {
  return new SwitchboardError(
    'not_permitted',
    `targets register ${name}: ${weakenings.join('; ')}: only a person at a terminal of their own may do this` +
      `${why ? ` (${why})` : ''}; run it there, or add it to config.yaml`,
  );
}

/**
 * A request's check under the registry's lock (RegisterRequest.check): what the spec weakens against what the write
 * goes over, refused unless the person confirmed each of it. An unattended run confirmed nothing, so a weakening the
 * lock finds that the read before it did not (the target changed meanwhile) is refused there.
 */
export function weakeningCheck(
  name: string,
  spec: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  confirmed: readonly string[],
): (replaced: Readonly<Record<string, unknown>> | undefined) => void {
  return (replaced) => {
    const unconfirmed = specWeakening(replaced, spec, keys).filter((w) => !confirmed.includes(w));
    if (unconfirmed.length === 0) return;
    if (confirmed.length === 0) throw weakeningRefusal(name, unconfirmed, undefined);
    throw new SwitchboardError(
      'not_permitted',
      `targets register ${name}: ${unconfirmed.join('; ')}: not what was confirmed (the target changed meanwhile); ` +
        `nothing of it was written`,
      'run it again',
    );
  };
}

/** One registration that weakens a sandbox: its name, each weakening, and who registers it. */
export interface Weakening {
  name: string;
  weakenings: string[];
  provider: string;
  owner_id?: string | undefined;
}

/** A person's word on one weakening: confirmed (and in the audit log), or why not. */
export type Consent = { confirmed: true } | { confirmed: false; error: unknown };

export interface ConsentOptions {
  /** Do not ask: the person has read what weakens. */
  yes?: boolean | undefined;
  json?: boolean | undefined;
}

/**
 * Each weakening's answer, in order: confirmed (and in the audit log), or why it is refused. A person is at a terminal
 * of their own (stdin one), outside every agent sandbox and tool call: the running Core judges the process (a
 * person-only method), or with none this CLI judges itself. They see every weakening and answer one [y/N] for all, or
 * typed --yes having read them.
 */
export async function consentToWeakening(
  home: string,
  asks: readonly Weakening[],
  opts: ConsentOptions,
): Promise<Consent[]> {
  if (asks.length === 0) return [];
  const entries = asks.map((a) => ({
    name: a.name,
    weakenings: a.weakenings,
    provider: a.provider,
    ...(a.owner_id ? { owner_id: a.owner_id } : {}),
  }));
  try {
    const live = coreRunning(home);
    const why = !atTerminal()
      ? 'stdin is not a terminal here'
      : live
        ? await coreRefusal(entries)
        : selfPersonRefusal();
    if (why !== undefined)
      return asks.map((a) => ({ confirmed: false, error: weakeningRefusal(a.name, a.weakenings, why) }));
    // With --json the question goes to stderr: stdout holds one JSON document.
    const out = opts.json ? process.stderr : process.stdout;
    out.write(
      `${asks.length === 1 ? 'this registration weakens' : 'these registrations weaken'} the sandbox agent work ` +
        `runs in:\n${asks.map((a) => a.weakenings.map((w) => `  ${a.name}: ${w}\n`).join('')).join('')}`,
    );
    const names = asks.length <= 3 ? asks.map((a) => a.name).join(', ') : `these ${asks.length} targets`;
    if (!opts.yes && !(await askYes(`Register ${names} anyway?`, out)))
      return asks.map((a) => ({
        confirmed: false,
        error: new SwitchboardError('not_permitted', `targets register ${a.name}: not confirmed; nothing was written`),
      }));
    // Recorded before the registry is written: a run cut off after its yes still leaves the person's word behind.
    if (live) await withCore((c) => c.call(METHOD, { entries, confirmed: true }));
    else await auditOffline(home, entries);
    return asks.map(() => ({ confirmed: true }));
  } catch (error) {
    // The Core could not be asked: nothing weakens without its word and its record.
    return asks.map(() => ({ confirmed: false, error }));
  }
}

/** Why the running Core does not take this process for a person's, or undefined when it does. */
async function coreRefusal(entries: Weakening[]): Promise<string | undefined> {
  try {
    await withCore((c) => c.call(METHOD, { entries, confirmed: false }));
    return undefined;
  } catch (err) {
    const payload = toErrorPayload(err);
    if (payload.code !== 'not_permitted') throw err;
    return payload.message.replace(/^only a person may use [\w.]+: /, '');
  }
}

/** With no Core to record it, the CLI appends the person's yes to audit.jsonl itself (no Core holds the chain). */
async function auditOffline(home: string, entries: readonly Weakening[]): Promise<void> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const log = new AuditLog(home);
  const time = new Date().toISOString();
  for (const e of entries)
    log.write({
      time,
      kind: 'action',
      client: 'cli',
      tool: METHOD,
      execution_target: e.name,
      args: redact(weakeningSummary(e)),
      outcome: 'ok',
      duration_ms: 0,
    });
  await log.close();
}
