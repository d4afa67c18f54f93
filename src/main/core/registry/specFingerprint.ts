// What an approval and a registered generation are bound to besides a name: a stable hash of a target's whole spec.
import { createHash } from 'node:crypto';

/**
 * `sha256:` and the hex digest of the spec as canonical JSON (keys sorted at every depth, undefined left out, as a
 * spec read back from a file has it). The whole spec counts: backend, connection fields, cwd and every other key, so
 * any change to what a target is gives another fingerprint.
 */
export function specFingerprint(spec: Readonly<Record<string, unknown>>): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(spec)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
