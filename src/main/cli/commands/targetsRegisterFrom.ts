// `switchboard targets register --from FILE|-`: many targets in one process and one registry transaction, one result
// line per entry (a refused entry says why and stops no other).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { SwitchboardError, errorLine, toErrorPayload } from '../../../shared/errors.js';
import type { SpecDeclaration } from '../../../shared/specFields.js';
import { checkSpec, secretReferenceKeys } from '../../core/registry/registryFile.js';
import type { EntryResult, RegisterRequest } from '../../core/registry/registry.js';
import { exitCodeFor, printJson } from '../output.js';
import { parseEntries, type Entry } from './registerEntries.js';
import { pluginDeclaration } from './pluginDeclaration.js';
import { changeDocument, changeLine, openRegistry } from './targetsRegistry.js';

/** A --from input larger than this is not a list of targets (the registry itself holds at most 1 MiB). */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export interface FromOptions {
  provider: string;
  ownerId?: string;
  replace?: boolean;
  json?: boolean;
}

export async function registerFrom(home: string, from: string, opts: FromOptions): Promise<void> {
  const entries = parseEntries(readInput(from));
  const declarations = new Map<string, Promise<SpecDeclaration | undefined>>();
  const requests: Array<{ entry: Entry; request?: RegisterRequest; error?: unknown }> = [];
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
  const valid = requests.flatMap((x) => (x.request ? [x.request] : []));
  const registry = openRegistry(home);
  let done: EntryResult[];
  try {
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
