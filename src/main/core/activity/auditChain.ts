// The hash chain of audit.jsonl: each line carries its place (`seq`) and the SHA-256 of the line before it (`prev`),
// and `audit.jsonl.head` the last line's place and hash, so an edited, deleted, inserted or cut-off line shows.
// Pure but for reading a file's tail; AuditLog writes the chain, `switchboard audit verify` checks it.
import { createHash } from 'node:crypto';
import { fstatSync, readSync } from 'node:fs';

/** What the first line of a chain carries as `prev`. */
export const GENESIS = '0'.repeat(64);

/** The head file sits beside the log it vouches for. */
export function headPath(logPath: string): string {
  return `${logPath}.head`;
}

/** SHA-256 (hex) of one line's bytes, without its newline. */
export function lineHash(line: string | Uint8Array): string {
  return createHash('sha256').update(line).digest('hex');
}

/** Where the chain stands: the next line's `seq` and `prev`. */
export interface ChainState {
  seq: number;
  prev: string;
}

/** What the head file says: the last line written, its place and hash. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** The head file's bytes: fixed length, so it is rewritten in place with one write at offset 0. */
export function headText(head: ChainHead): string {
  return JSON.stringify({ seq: head.seq, hash: head.hash }).padEnd(127) + '\n';
}

export function parseHead(text: string): ChainHead | undefined {
  try {
    const v = JSON.parse(text) as Partial<ChainHead>;
    return typeof v.seq === 'number' && typeof v.hash === 'string' ? { seq: v.seq, hash: v.hash } : undefined;
  } catch {
    // not a head: the chain is checked from its lines
    return undefined;
  }
}

/** One record as its chained line (no newline): `seq` and `prev` first, then the record's own fields. */
export function chainLine(json: string, at: ChainState): string {
  const link = `{"seq":${at.seq},"prev":"${at.prev}"`;
  return json === '{}' ? `${link}}` : `${link},${json.slice(1)}`;
}

/**
 * A record that also says how many lines before it were lost (not written: a full disk). The count is part of the
 * line, so it is hashed into the chain like the rest; `audit verify` adds the counts up.
 */
export function withLost(json: string, lost: number): string {
  if (!lost) return json;
  return json === '{}' ? `{"audit_lost":${lost}}` : `{"audit_lost":${lost},${json.slice(1)}`;
}

/** How far back a Core looks for the last line it continues from. */
const TAIL_BYTES = 64 * 1024;

/**
 * Where the chain of an open log stands, from its last bytes only (a long log is not read): after the last line,
 * whose `seq` says the next one. `newline`: the file ends inside a line (a crash mid-write, or a cut), so the next
 * write starts a line of its own; that cut line stays and `audit verify` reports it.
 */
export function chainTail(fd: number): ChainState & { newline: boolean } {
  const size = fstatSync(fd).size;
  if (size === 0) return { seq: 1, prev: GENESIS, newline: false };
  // Enough of the end to hold the whole last line (and so the line before it, or the file's start).
  let length = Math.min(size, TAIL_BYTES);
  let buf = Buffer.alloc(0);
  for (;;) {
    buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    if (length === size || buf.subarray(0, length - 1).includes(0x0a)) break;
    length = Math.min(size, length * 4);
  }
  const newline = buf[length - 1] !== 0x0a;
  const body = newline ? buf : buf.subarray(0, length - 1);
  const lines = splitLines(body);
  // A tail that starts mid-line: its first piece is not a whole line unless it is the file's start.
  if (length < size) lines.shift();
  const last = lines[lines.length - 1]!;
  let seq = 1;
  for (let i = lines.length - 1; i >= 0; i--) {
    const s = seqOf(lines[i]!);
    if (s !== undefined) {
      seq = s + (lines.length - i);
      break;
    }
  }
  return { seq, prev: lineHash(last), newline };
}

function seqOf(line: Uint8Array): number | undefined {
  try {
    const v = JSON.parse(Buffer.from(line).toString('utf8')) as { seq?: unknown };
    return typeof v.seq === 'number' ? v.seq : undefined;
  } catch {
    // a line that does not parse has no number
    return undefined;
  }
}

function splitLines(buf: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, start)) {
    out.push(buf.subarray(start, i));
    start = i + 1;
  }
  out.push(buf.subarray(start));
  return out;
}

export type ChainBreakKind = 'edited' | 'deleted' | 'inserted' | 'truncated';

export interface ChainReport {
  whole: boolean;
  /** Lines in the file. */
  lines: number;
  /** Lines at the start written before the log was chained (kept, but nothing vouches for them). */
  unchained: number;
  /** Whether a head file was there to check the end against (without one, lines cut from the end do not show). */
  head: boolean;
  /**
   * Lines the writer could not write (a full disk), as the lines after them said (`audit_lost`): a gap said, not a
   * break.
   */
  lost?: number;
  /** The first place the chain breaks, 1-based, and how. */
  break?: { line: number; how: ChainBreakKind; detail: string };
}

interface Link {
  seq: number;
  prev: string;
  lost: number;
}

function linkOf(line: Uint8Array): Link | 'not json' | 'no link' {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(line).toString('utf8'));
  } catch {
    // the verdict says so
    return 'not json';
  }
  if (!v || typeof v !== 'object') return 'not json';
  const { seq, prev, audit_lost } = v as { seq?: unknown; prev?: unknown; audit_lost?: unknown };
  return typeof seq === 'number' && typeof prev === 'string'
    ? { seq, prev, lost: typeof audit_lost === 'number' ? audit_lost : 0 }
    : 'no link';
}

/** Check a log's bytes (and its head, if there is one): whole, or the first line where it breaks and how. */
export function verifyChain(bytes: Uint8Array, head?: ChainHead): ChainReport {
  const lines = bytes.length === 0 ? [] : splitLines(bytes);
  const cut = lines.length > 0 && lines[lines.length - 1]!.length > 0;
  if (!cut && lines.length > 0) lines.pop();
  const n = lines.length;
  const hashes = lines.map((l) => lineHash(l));
  const links = lines.map(linkOf);
  const total = links.reduce((sum, l) => sum + (typeof l === 'string' ? 0 : l.lost), 0);
  // Said only when some were lost, so a log that never met a full disk reads as before.
  const lost = total ? { lost: total } : {};
  const report = (line: number, how: ChainBreakKind, detail: string): ChainReport => ({
    whole: false,
    lines: n,
    unchained,
    head: head !== undefined,
    ...lost,
    break: { line, how, detail },
  });

  // A log kept before the chain existed: its first lines carry no link; the chain starts after them.
  let unchained = 0;
  while (unchained < n && links[unchained] === 'no link') unchained++;
  if (unchained === n && n > 0 && !cut && !head) return { whole: true, lines: n, unchained, head: false, ...lost };

  for (let i = unchained; i < n; i++) {
    const expPrev = i === 0 ? GENESIS : hashes[i - 1]!;
    const before = i > unchained ? (links[i - 1] as Link) : undefined;
    const expSeq = before ? before.seq + 1 : 1;
    const link = links[i]!;
    if (i === n - 1 && cut) return report(i + 1, 'truncated', `line ${i + 1} is cut short: the log ends inside it`);
    if (typeof link !== 'string' && link.prev === expPrev && link.seq === expSeq) continue;
    // The line after links past this one: this one was put in.
    const next = links[i + 1];
    if (next !== undefined && typeof next !== 'string' && next.prev === expPrev && next.seq === expSeq) {
      return report(i + 1, 'inserted', `line ${i + 1} was added: line ${i + 2} follows line ${i} in the chain`);
    }
    if (typeof link === 'string') {
      return report(
        i + 1,
        'edited',
        link === 'not json'
          ? `line ${i + 1} is not a JSON record`
          : `line ${i + 1} lost its place in the chain (no seq or prev)`,
      );
    }
    // The line before carried a forged link: this line still links past it.
    if (i >= 1 && link.seq === expSeq - 1 && link.prev === (i >= 2 ? hashes[i - 2] : GENESIS)) {
      return report(i, 'inserted', `line ${i} was added: line ${i + 1} follows line ${i - 1} in the chain`);
    }
    if (i === unchained && unchained > 0 && link.seq !== 1) {
      return report(unchained, 'edited', `line ${unchained} lost its place in the chain (no seq or prev)`);
    }
    if (link.seq > expSeq) {
      const gone = link.seq - expSeq;
      return report(i + 1, 'deleted', `${gone} line${gone === 1 ? '' : 's'} deleted before line ${i + 1}`);
    }
    if (link.seq === expSeq) {
      return i === 0
        ? report(1, 'edited', 'line 1 does not start the chain')
        : report(i, 'edited', `line ${i} was changed: its hash is not the one line ${i + 1} recorded`);
    }
    return report(i + 1, 'inserted', `line ${i + 1} repeats an earlier place in the chain (seq ${link.seq})`);
  }
  if (head) {
    const lastSeq = n > unchained ? (links[n - 1] as Link).seq : 0;
    if (head.seq > lastSeq) {
      const gone = head.seq - lastSeq;
      return report(
        n + 1,
        'truncated',
        `${gone} line${gone === 1 ? '' : 's'} cut from the end: the log stops at line ${n}`,
      );
    }
    const at = n - (lastSeq - head.seq) - 1;
    if (at >= unchained && hashes[at] !== head.hash)
      return report(at + 1, 'edited', `line ${at + 1} was changed: its hash is not the one the head recorded`);
  }
  return { whole: true, lines: n, unchained, head: head !== undefined, ...lost };
}
