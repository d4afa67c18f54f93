// Reading runtime-targets.json: for readers, a bounded load where every fault is a problem line and what was read
// before holds (the last-good record); for writers, the file as it is now, refused when broken, never trusted from
// a cache. Never through a symbolic link.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { SwitchboardError, toErrorPayload } from '../../../shared/errors.js';
import {
  MAX_REGISTRY_BYTES,
  REGISTRY_FILE,
  emptyDocument,
  parseDocument,
  readRecords,
  type RegistryDocument,
  type SchemaFor,
} from './registryFile.js';
import type { RuntimeRecord } from './runtimeSource.js';
import { rememberedSecretReferences } from '../plugins/index.js';

/** What a reader holds of the file: its signature, records, problems. */
export interface RegistrySnapshot {
  signature: string;
  records: RuntimeRecord[];
  problems: string[];
  /** Records and problems as one string: equal ⇔ nothing a reader sees changed. */
  fingerprint: string;
}

/** The file's identity and state in one lstat: a change of it is a change of the file. */
export function fileSignature(path: string): string {
  try {
    // Asked on every call: a missing file is an answer, not an exception.
    const st = lstatSync(path, { throwIfNoEntry: false });
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
export function loadRegistry(
  path: string,
  home: string,
  schemaFor: SchemaFor,
  previous?: RegistrySnapshot,
): RegistrySnapshot {
  const before = previous?.records ?? [];
  const snap = (signature: string, records: RuntimeRecord[], problems: string[]): RegistrySnapshot => ({
    signature,
    records,
    problems,
    fingerprint: JSON.stringify([records, problems]),
  });
  /** The whole file is unusable: keep the records read before. */
  const untrusted = (signature: string, problems: string[], fault: string): RegistrySnapshot =>
    snap(signature, before, [
      ...problems,
      before.length
        ? `${fault}; the ${before.length} runtime target${before.length === 1 ? '' : 's'} read before ` +
          `stay${before.length === 1 ? 's' : ''} in force until it is fixed`
        : `${fault}; runtime targets are ignored until it is fixed`,
    ]);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return snap('missing', [], []);
    const sig = fileSignature(path);
    if (code === 'ELOOP') return untrusted(sig, [], `${path} is a symbolic link`);
    return untrusted(sig, [], `cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    const sig = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.mode}`;
    if (!st.isFile()) return untrusted(sig, [], `${path} is not a regular file`);
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
      problems.push(`${path} has mode ${(st.mode & 0o777).toString(8)}; it should be 600 (chmod 600 ${path})`);
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
    } = readRecords(doc, schemaFor, rememberedSecretReferences(home));
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
    return untrusted(fileSignature(path), [], `cannot read ${path}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** The file as it is now, for a writer: a missing file is empty; a broken one is refused, never overwritten. */
export function readForWrite(path: string): RegistryDocument {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return emptyDocument();
    if (code === 'ELOOP')
      throw new SwitchboardError(
        'not_permitted',
        `${path} is a symbolic link; Switchboard refuses to follow it`,
        'replace it with a regular file (or delete it)',
      );
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SwitchboardError('bad_config', `${path} is not a regular file`, 'delete it');
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
