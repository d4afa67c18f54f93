// The stand-ins for protected paths that did not exist yet (sandboxPolicy's placeholders): created on the host just
// before a sandbox starts so that bwrap can bind them read-only, kept while any sandbox of this process uses them,
// and removed after — but only when nobody wrote to them meanwhile (same inode, same text, an empty folder), so a
// person who started a ~/.bash_aliases of their own while an agent worked keeps it. The profile keeps a record of
// what it created, so a Core that was killed has its leftovers removed by the next one.
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { atomicWriteSync } from '../platform/index.js';
import type { Placeholder } from './sandboxPolicy.js';

const Created = z.object({
  path: z.string(),
  kind: z.enum(['file', 'dir']),
  dev: z.number(),
  ino: z.number(),
  content: z.string(),
});
type Created = z.infer<typeof Created>;
const Record = z.object({ placeholders: z.array(Created) });

/** What this process created and how many running sandboxes use each. */
const live = new Map<string, { created: Created; users: number; record: string }>();
/** Profiles whose record was swept in this process. */
const swept = new Set<string>();

function untouched(c: Created): boolean {
  try {
    const st = lstatSync(c.path, { bigint: false });
    if (st.dev !== c.dev || st.ino !== c.ino) return false;
    if (c.kind === 'dir') return st.isDirectory() && readdirSync(c.path).length === 0;
    return st.isFile() && readFileSync(c.path, 'utf8') === c.content;
  } catch {
    return false; // gone already, or not ours to read: nothing to remove
  }
}

function remove(c: Created): void {
  if (!untouched(c)) return;
  try {
    if (c.kind === 'dir') rmdirSync(c.path);
    else unlinkSync(c.path);
  } catch {
    // A sandbox of another process still has it as its mount point, or it just changed: it stays, harmless.
  }
}

function readRecord(record: string): Created[] {
  try {
    return Record.parse(JSON.parse(readFileSync(record, 'utf8'))).placeholders;
  } catch {
    return []; // none yet, or unreadable: nothing to sweep
  }
}

function writeRecord(record: string): void {
  const mine = [...live.values()].filter((l) => l.record === record).map((l) => l.created);
  try {
    mkdirSync(dirname(record), { recursive: true, mode: 0o700 });
    atomicWriteSync(record, `${JSON.stringify({ placeholders: mine })}\n`);
  } catch {
    // A full or read-only profile: the placeholders are still removed by this process; a crash would leave them.
  }
}

function create(p: Placeholder): Created | undefined {
  try {
    if (p.kind === 'dir') mkdirSync(p.path, { mode: p.path.endsWith('/.ssh') ? 0o700 : 0o755 });
    else {
      const fd = openSync(p.path, 'wx', 0o644);
      try {
        writeSync(fd, p.content);
      } finally {
        closeSync(fd);
      }
    }
  } catch (err) {
    // Someone made it meanwhile: it exists now, and is bound read-only like any existing path.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  }
  const st = lstatSync(p.path);
  return { path: p.path, kind: p.kind, dev: st.dev, ino: st.ino, content: p.content };
}

/**
 * Whether `path` is a placeholder this process made and a sandbox still uses. The policy counts it as missing, so the
 * same protected path keeps the same placeholder (and the same mounts) while it lives.
 */
export function isPlaceholder(path: string): boolean {
  return live.has(path);
}

/** Remove what a Core that ended without cleaning up left (once per profile and process, before any sandbox starts). */
export function sweepPlaceholders(record: string): void {
  if (swept.has(record)) return;
  swept.add(record);
  for (const c of readRecord(record)) if (!live.has(c.path)) remove(c);
  writeRecord(record);
}

/**
 * Create what is missing of `wanted` and count this sandbox as a user of it; the returned function ends the use
 * (removing what no sandbox uses any more). `record` is the profile's file of what was created. Throws when a
 * placeholder cannot be made (the sandbox must not start without it).
 */
export function usePlaceholders(wanted: readonly Placeholder[], record: string): () => void {
  sweepPlaceholders(record);
  const used: string[] = [];
  let changed = false;
  for (const p of wanted) {
    const known = live.get(p.path);
    if (known) {
      known.users++;
      used.push(p.path);
      continue;
    }
    const created = create(p);
    if (!created) continue;
    live.set(p.path, { created, users: 1, record });
    used.push(p.path);
    changed = true;
  }
  if (changed) writeRecord(record);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const records = new Set<string>();
    for (const path of used) {
      const l = live.get(path);
      if (!l || --l.users > 0) continue;
      live.delete(path);
      remove(l.created);
      records.add(l.record);
    }
    for (const r of records) writeRecord(r);
  };
}
