// `switchboard targets register --from FILE|-`: many targets in one process and one registry transaction, one result
// line per entry (a refused entry says why and stops no other: one that weakens a sandbox without a person's yes too).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { SwitchboardError, errorLine, toErrorPayload } from '../../../shared/errors.js';
import type { SpecDeclaration } from '../../../shared/specFields.js';
import { checkSpec, type EntryResult, type RegisterRequest, type Registry } from '../../core/registry/index.js';
import { secretReferenceKeys } from '../../core/backends/index.js';
import { exitCodeFor, printJson } from '../output.js';
import { parseEntries, type Entry } from './registerEntries.js';
import { pluginDeclaration } from './pluginDeclaration.js';
import { changeDocument, changeLine, openRegistry } from './targetsRegistry.js';
import { consentToWeakening, sandboxKeys, weakeningCheck, weakeningsOf } from './weakeningConsent.js';

/** A --from input larger than this is not a list of targets (the registry itself holds at most 1 MiB). */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export interface FromOptions {
  provider: string;
  ownerId?: string;
  replace?: boolean;
  json?: boolean;
  /** Do not ask before a weaker sandbox: the person has read what weakens. */
  yes?: boolean;
}

/** One entry on its way: its request (with its backend's sandbox keys), or why it was refused before the registry. */
interface Planned {
  entry: Entry;
  request?: RegisterRequest;
  keys?: string[];
  error?: unknown;
}

export async function registerFrom(home: string, from: string, opts: FromOptions): Promise<void> {
  const entries = parseEntries(readInput(from));
  const declarations = new Map<string, Promise<SpecDeclaration | undefined>>();
  const requests: Planned[] = [];
  for (const entry of entries) {
    if ('error' in entry) {
      requests.push({ entry, error: new SwitchboardError('bad_request', entry.error) });
      continue;
    }
    const r = entry.request;
    try {
      // A plugin backend's spec is checked against the fields its running Core declares, as a single register does.
      const backend = typeof r.spec.backend === 'string' ? r.spec.backend : '';
      if (backend && !declarations.has(backend)) declarations.set(backend, pluginDeclaration(home, backend));
      const plugin = backend ? await declarations.get(backend) : undefined;
      if (plugin) checkSpec(r.name, r.spec, () => plugin.specSchema, { references: secretReferenceKeys([plugin]) });
      requests.push({
        entry,
        keys: sandboxKeys(r.spec.backend, plugin),
        request: {
          name: r.name,
          spec: r.spec,
          provider: r.provider ?? opts.provider,
          owner_id: r.owner_id ?? opts.ownerId,
          generation: r.generation,
          replace: r.replace ?? opts.replace,
          if_generation: r.if_generation,
        },
      });
    } catch (error) {
      requests.push({ entry, error });
    }
  }
  const registry = openRegistry(home);
  let done: EntryResult[];
  try {
    await weakenOnlyWithConsent(home, registry, requests, opts);
    const valid = requests.flatMap((x) => (x.request ? [x.request] : []));
    done = valid.length ? await registry.registerMany(valid) : [];
  } finally {
    registry.close();
  }
  let k = 0;
  const results = requests.map((x): { where: string; result: EntryResult } => ({
    where: x.entry.where,
    result: x.request ? done[k++]! : { ok: false, name: x.entry.name ?? '', error: x.error },
  }));
  report(results, opts.json);
}

/**
 * The entries that weaken a sandbox, asked of a person in one question; each one not confirmed becomes its own
 * refusal, and the rest register as they would. Every request gets the lock's check of what it was confirmed for.
 */
async function weakenOnlyWithConsent(
  home: string,
  registry: Registry,
  requests: Planned[],
  opts: FromOptions,
): Promise<void> {
  const weakening = requests.flatMap((x) => {
    if (!x.request) return [];
    const weakenings = weakeningsOf(registry, x.request.name, x.request.spec, x.keys!);
    return weakenings.length ? [{ x, weakenings }] : [];
  });
  const answers = await consentToWeakening(
    home,
    weakening.map(({ x, weakenings }) => ({
      name: x.request!.name,
      weakenings,
      provider: x.request!.provider,
      owner_id: x.request!.owner_id,
    })),
    opts,
  );
  const confirmed = new Map<Planned, string[]>();
  for (const [i, { x, weakenings }] of weakening.entries()) {
    const answer = answers[i]!;
    if (answer.confirmed) confirmed.set(x, weakenings);
    else {
      x.error = answer.error;
      delete x.request;
    }
  }
  for (const x of requests)
    if (x.request) x.request.check = weakeningCheck(x.request.name, x.request.spec, x.keys!, confirmed.get(x) ?? []);
}

/** Every entry's result, in input order: a line each (refusals on stderr), or one JSON document. */
export function report(
  results: Array<{ where: string; result: EntryResult }>,
  json: boolean | undefined,
  dryRun?: boolean,
): void {
  const failed = results.filter((r) => !r.result.ok);
  if (json) {
    printJson({
      ...(dryRun ? { dry_run: true } : {}),
      results: results.map(({ where, result }) =>
        result.ok
          ? { entry: where, ...changeDocument(result.change) }
          : { entry: where, name: result.name, error: toErrorPayload(result.error) },
      ),
      ok: results.length - failed.length,
      failed: failed.length,
    });
  } else {
    for (const { where, result } of results) {
      if (result.ok) process.stdout.write(`${changeLine(result.change)}\n`);
      else
        process.stderr.write(
          `switchboard: ${where}${result.name ? ` ("${result.name}")` : ''}: ` +
            `${errorLine(toErrorPayload(result.error))}\n`,
        );
    }
  }
  if (results.length === 0 && !dryRun && !json)
    process.stderr.write('switchboard: --from held no entries; nothing was registered\n');
  if (failed.length) {
    if (json) process.stderr.write(`switchboard: ${failed.length} of ${results.length} entries were refused\n`);
    const first = failed[0]!.result;
    process.exitCode = exitCodeFor(toErrorPayload(first.ok ? undefined : first.error).code);
  }
}

/** The whole input, stdin for `-`; bounded, read without following it forever. */
function readInput(from: string): string {
  let fd: number;
  try {
    fd = from === '-' ? 0 : openSync(from, 'r');
  } catch (err) {
    throw new SwitchboardError('bad_request', `--from: cannot read ${from}: ${(err as NodeJS.ErrnoException).code}`);
  }
  try {
    if (from !== '-' && !fstatSync(fd).isFile())
      throw new SwitchboardError('bad_request', `--from: ${from} is not a file`);
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(1 << 16);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        // A non-blocking stdin with nothing in it yet: wait a moment and read again.
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        if ((err as NodeJS.ErrnoException).code === 'EOF') break;
        throw err;
      }
      if (n === 0) break;
      total += n;
      if (total > MAX_INPUT_BYTES)
        throw new SwitchboardError('too_large', `--from: the input is over ${MAX_INPUT_BYTES / 1024 / 1024} MiB`);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    if (from !== '-') closeSync(fd);
  }
}
