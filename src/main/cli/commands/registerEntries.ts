// The entries of `targets register --from`: JSON lines or a YAML list, each one target; pure, tested by table.
import * as z from 'zod';
import { parse as parseYaml } from 'yaml';
import { SwitchboardError, formatZodError } from '../../../shared/errors.js';

/** More entries than the registry could ever hold is a mistake in the input, not a fleet. */
export const MAX_ENTRIES = 4096;

/** What one entry asks for; `provider` and `owner_id` default to the command's flags. */
export interface EntryRequest {
  name: string;
  spec: Record<string, unknown>;
  provider?: string;
  owner_id?: string;
  generation?: string;
  replace?: boolean;
  if_generation?: string;
}

/** One entry as read: where it is in the input ("line 3", "entry 3"), then its request or why it cannot be read. */
export type Entry =
  | { where: string; name?: string; request: EntryRequest }
  | { where: string; name?: string; error: string };

const entryKeys = ['name', 'spec', 'provider', 'owner_id', 'generation', 'replace', 'if_generation'] as const;

const EntryShape = z.strictObject({
  name: z.string(),
  spec: z.record(z.string(), z.unknown()),
  provider: z.string().optional(),
  owner_id: z.string().optional(),
  generation: z.string().optional(),
  replace: z.boolean().optional(),
  if_generation: z.string().optional(),
});

/**
 * An object as one entry. Its spec is under `spec`, or (the short form) every key that is not an entry key:
 * `{"name": "f1", "backend": "ssh", "ssh_host": "10.0.0.1"}`.
 */
export function entryOf(value: unknown): { name?: string; request?: EntryRequest; error?: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { error: 'an entry is an object with a name' };
  const raw = value as Record<string, unknown>;
  const name = typeof raw.name === 'string' ? raw.name : undefined;
  let shaped: Record<string, unknown> = raw;
  if (raw.spec === undefined) {
    const spec: Record<string, unknown> = {};
    shaped = {};
    for (const [k, v] of Object.entries(raw)) {
      if ((entryKeys as readonly string[]).includes(k)) shaped[k] = v;
      else spec[k] = v;
    }
    shaped.spec = spec;
  }
  const parsed = EntryShape.safeParse(shaped);
  if (!parsed.success) return { ...(name ? { name } : {}), error: formatZodError(parsed.error) };
  const { spec, ...rest } = parsed.data;
  const request: EntryRequest = { ...rest, spec };
  return { name: request.name, request };
}

/**
 * The entries of a --from input. JSON lines (the input starts with `{`): each line on its own, so one bad line is
 * that line's error and the rest still register. Otherwise a YAML list (JSON arrays are YAML too); YAML that does
 * not parse, or is not a list, fails as a whole.
 */
export function parseEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  if (text.trimStart().startsWith('{')) {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (line === '' || line.startsWith('#')) continue;
      const where = `line ${i + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        // The line is not quoted back: it may hold anything, a secret included.
        entries.push({ where, error: 'not valid JSON' });
        continue;
      }
      entries.push(shapeOf(where, entryOf(value)));
    }
  } else {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      const at = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
      throw new SwitchboardError(
        'bad_request',
        `--from: not valid YAML${at ? ` (line ${at.line}, column ${at.col})` : ''}`,
        'give a YAML list of targets, or JSON lines (one object a line)',
      );
    }
    if (doc === null || doc === undefined) doc = [];
    if (!Array.isArray(doc))
      throw new SwitchboardError(
        'bad_request',
        '--from: the YAML is not a list',
        'give a list of targets (- name: f1 …), or JSON lines (one object a line)',
      );
    for (const [i, value] of doc.entries()) entries.push(shapeOf(`entry ${i + 1}`, entryOf(value)));
  }
  if (entries.length > MAX_ENTRIES)
    throw new SwitchboardError(
      'too_large',
      `--from holds ${entries.length} entries, over the limit of ${MAX_ENTRIES}`,
      'split it into several runs',
    );
  return entries;
}

function shapeOf(where: string, e: ReturnType<typeof entryOf>): Entry {
  const name = e.name !== undefined ? { name: e.name } : {};
  return e.request ? { where, ...name, request: e.request } : { where, ...name, error: e.error ?? 'unreadable entry' };
}
