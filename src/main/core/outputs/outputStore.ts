// Keeps the whole output of a tool call whose result had to be cut, so that an agent can page through it
// (read_output). Files in the profile's state dir, private to its user, bounded per call and in total, deleted after a
// retention time and when the Core stops.
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { SwitchboardError } from '../../../shared/errors.js';
import { echoed } from '../../../shared/echoed.js';

/** The most one call's output may take on disk; past it the output is cut (the result's tail still shows the end). */
export const MAX_OUTPUT_BYTES_PER_CALL = 64 * 1024 * 1024;
/** The most every kept output together may take; the oldest are deleted first to make room. */
export const MAX_OUTPUT_BYTES_TOTAL = 512 * 1024 * 1024;
/** How long an output is kept after its call ended. */
export const OUTPUT_RETENTION_MS = 60 * 60 * 1000;
/** How often expired outputs are looked for (besides at every new output). */
const SWEEP_EVERY_MS = 60 * 1000;
/** A read finds its place from a mark at most this many chars before it (offsets are in chars, the file in bytes). */
const MARK_EVERY_CHARS = 64 * 1024;
/** What one read takes from the file at a time. */
const READ_BLOCK_BYTES = 1024 * 1024;

/** An output's id: 128 random bits as hex, so that nobody finds one they were not given. */
const ID_PATTERN = /^[0-9a-f]{32}$/;

export interface OutputLimits {
  perCallBytes: number;
  totalBytes: number;
  retentionMs: number;
}

/** Where the output came from: a read scoped to another target does not find it. */
export interface OutputOwner {
  execution_target: string;
  generation: string;
}

/** One slice of a kept output, in the words `process log` uses too. */
export interface OutputSlice {
  output: string;
  /** Where the slice starts, in chars of the whole output. */
  offset: number;
  /** The whole output's length in chars (what was kept of it). */
  total_chars: number;
  /** Where the next slice starts; absent when this one reached the end. */
  next_offset?: number;
  has_more: boolean;
}

/** What read_output returns: the slice, whose output it is, and what the bounds left out of it. */
export type KeptSlice = OutputSlice & OutputOwner & { output_id: string; cut_chars?: number };

interface Kept {
  readonly id: string;
  readonly path: string;
  readonly owner: OutputOwner;
  fd: number | undefined;
  chars: number;
  bytes: number;
  /** Chars the per-call or total bound left out (after the kept part). */
  cut: number;
  /** Byte positions of char offsets, at least every MARK_EVERY_CHARS chars: [chars, bytes] pairs in order. */
  marks: [number, number][];
  endedAt: number | undefined;
}

export class OutputStore {
  private readonly kept = new Map<string, Kept>();
  private totalBytes = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private dirReady = false;
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly limits: OutputLimits = {
      perCallBytes: MAX_OUTPUT_BYTES_PER_CALL,
      totalBytes: MAX_OUTPUT_BYTES_TOTAL,
      retentionMs: OUTPUT_RETENTION_MS,
    },
  ) {}

  /**
   * A spool for one call's output: it holds the first `keepAfterChars` in memory and writes nothing, so a short call
   * costs no file; past them everything (from the first char) goes to a file of its own.
   */
  spool(owner: OutputOwner, keepAfterChars: number): OutputSpool {
    return new OutputSpool(this, owner, keepAfterChars);
  }

  /** A new file for `owner`'s output. */
  open(owner: OutputOwner): Kept {
    if (this.closed) throw new SwitchboardError('unsupported', 'outputs are no longer kept: the Core is stopping');
    this.sweep();
    this.prepareDir();
    const id = randomBytes(16).toString('hex');
    const path = join(this.dir, `${id}.out`);
    // wx: created here and now, never an existing file or a link planted under this name.
    const fd = openSync(path, 'wx', 0o600);
    const k: Kept = { id, path, owner, fd, chars: 0, bytes: 0, cut: 0, marks: [[0, 0]], endedAt: undefined };
    this.kept.set(id, k);
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_EVERY_MS).unref();
    return k;
  }

  /** Append `text` to `k`, within the bounds; what does not fit is counted as cut. */
  append(k: Kept, text: string): void {
    if (k.fd === undefined || k.cut > 0) {
      k.cut += text.length;
      return;
    }
    for (let at = 0; at < text.length; ) {
      let end = Math.min(text.length, at + MARK_EVERY_CHARS);
      // Never between the two halves of a surrogate pair: a mark must fall on a char that UTF-8 can encode alone.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
      const piece = text.slice(at, end);
      const data = Buffer.from(piece, 'utf8');
      if (!this.makeRoom(k, data.length)) {
        k.cut += text.length - at;
        this.finishFile(k);
        return;
      }
      if (k.chars - k.marks[k.marks.length - 1]![0] >= MARK_EVERY_CHARS) k.marks.push([k.chars, k.bytes]);
      try {
        writeSync(k.fd, data);
      } catch {
        // The profile's disk is full: what was written is kept, the rest is counted as cut.
        k.cut += text.length - at;
        this.finishFile(k);
        return;
      }
      k.chars += piece.length;
      k.bytes += data.length;
      this.totalBytes += data.length;
      at = end;
    }
  }

  /** The call ended: its output is complete and its retention time starts. */
  end(k: Kept): void {
    this.finishFile(k);
    k.endedAt = Date.now();
  }

  /**
   * A slice of output `id`: `limit` chars from `offset`. `target`: the read names a target, and an output of another
   * target is not found (as an unknown id is not).
   */
  read(id: string, opts: { offset: number; limit: number; target?: string | undefined }): KeptSlice {
    this.sweep();
    const k = ID_PATTERN.test(id) ? this.kept.get(id) : undefined;
    if (!k || (opts.target !== undefined && k.owner.execution_target !== opts.target)) {
      throw new SwitchboardError(
        'unknown_output',
        `no output "${echoed(id)}"${opts.target !== undefined ? ` of target "${echoed(opts.target)}"` : ''} is kept`,
        `use the output_id of a cut result; outputs are kept ${this.retentionMinutes()} min and while the Core runs`,
      );
    }
    if (opts.offset > k.chars) {
      throw new SwitchboardError(
        'bad_request',
        `offset ${opts.offset} is past the end of output ${id} (${k.chars} chars)`,
        `read from an offset below ${k.chars}`,
      );
    }
    const slice = this.slice(k, opts.offset, opts.limit);
    const next = slice.offset + slice.output.length;
    return {
      ...k.owner,
      output_id: id,
      ...slice,
      total_chars: k.chars,
      ...(next < k.chars ? { next_offset: next } : {}),
      has_more: next < k.chars,
      ...(k.cut > 0 ? { cut_chars: k.cut } : {}),
    };
  }

  private retentionMinutes(): number {
    return Math.round(this.limits.retentionMs / 60_000);
  }

  /** Delete one output now. */
  forget(k: Kept): void {
    this.drop(k);
  }

  /** Delete every kept output (the Core stops). */
  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const k of [...this.kept.values()]) this.drop(k);
    rmSync(this.dir, { recursive: true, force: true });
    this.closed = true;
  }

  private slice(k: Kept, offset: number, limit: number): { output: string; offset: number } {
    // The last mark at or before the offset; from there the file is decoded up to the slice's end.
    let lo = 0;
    for (let hi = k.marks.length - 1; lo < hi; ) {
      const mid = (lo + hi + 1) >> 1;
      if (k.marks[mid]![0] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const [markChars, markBytes] = k.marks[lo]!;
    const fd = openSync(k.path, 'r');
    try {
      const decoder = new StringDecoder('utf8');
      const buf = Buffer.allocUnsafe(READ_BLOCK_BYTES);
      // One char before the offset too, to see whether the offset splits a surrogate pair.
      const from = Math.max(markChars, offset - 1);
      const want = offset + limit + 1 - markChars;
      let text = '';
      for (let pos = markBytes; text.length < want && pos < k.bytes; ) {
        const n = readSync(fd, buf, 0, Math.min(READ_BLOCK_BYTES, k.bytes - pos), pos);
        if (n === 0) break;
        pos += n;
        text += decoder.write(buf.subarray(0, n));
      }
      text += decoder.end();
      let start = offset;
      // An offset between the halves of a pair starts at the pair.
      if (start > from && isHighSurrogate(text.charCodeAt(from - markChars))) start = from;
      let end = Math.min(k.chars, start + limit);
      // A slice never ends between the halves of a pair (the next one starts with the pair), unless it would be empty.
      if (end < k.chars && end - start > 1 && isHighSurrogate(text.charCodeAt(end - 1 - markChars))) end--;
      return { output: text.slice(start - markChars, end - markChars), offset: start };
    } finally {
      closeSync(fd);
    }
  }

  /** A previous run's outputs (a Core that did not stop cleanly) are nobody's now: deleted at start. */
  clearLeftovers(): void {
    if (this.dirReady) return;
    rmSync(this.dir, { recursive: true, force: true });
  }

  private prepareDir(): void {
    if (this.dirReady) return;
    this.clearLeftovers();
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.dirReady = true;
  }

  /** Make room for `bytes` more of `k`: false when its own bound, or the total with everything older gone, is hit. */
  private makeRoom(k: Kept, bytes: number): boolean {
    if (k.bytes + bytes > this.limits.perCallBytes) return false;
    // Oldest first (a Map keeps the order outputs were made in); another call's output still being written stays.
    for (const other of this.kept.values()) {
      if (this.totalBytes + bytes <= this.limits.totalBytes) break;
      if (other !== k && other.endedAt !== undefined) this.drop(other);
    }
    return this.totalBytes + bytes <= this.limits.totalBytes;
  }

  private finishFile(k: Kept): void {
    if (k.fd === undefined) return;
    closeSync(k.fd);
    k.fd = undefined;
  }

  private drop(k: Kept): void {
    this.finishFile(k);
    this.kept.delete(k.id);
    this.totalBytes -= k.bytes;
    try {
      unlinkSync(k.path);
    } catch {
      // Already gone (the directory was removed): there is nothing left to free.
    }
  }

  private sweep(): void {
    const before = Date.now() - this.limits.retentionMs;
    for (const k of [...this.kept.values()]) if (k.endedAt !== undefined && k.endedAt < before) this.drop(k);
  }
}

/** One call's output on its way: counted for progress, kept whole once it is longer than the result can show. */
export class OutputSpool {
  private pending: string[] = [];
  private chars = 0;
  private carry = '';
  private file: Kept | undefined;
  private ended = false;
  /** The UTF-8 size of everything pushed so far. */
  bytes = 0;

  constructor(
    private readonly store: OutputStore,
    private readonly owner: OutputOwner,
    private readonly keepAfterChars: number,
  ) {}

  push(chunk: string): void {
    if (this.ended || chunk.length === 0) return;
    // Half a surrogate pair at a chunk's end waits for its other half: encoded alone it would be lost (U+FFFD).
    let text = this.carry + chunk;
    this.carry = '';
    if (isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.carry = text.slice(-1);
      text = text.slice(0, -1);
    }
    this.write(text);
  }

  private write(text: string): void {
    if (text.length === 0) return;
    this.bytes += Buffer.byteLength(text, 'utf8');
    if (this.file) return this.store.append(this.file, text);
    this.pending.push(text);
    this.chars += text.length;
    if (this.chars <= this.keepAfterChars) return;
    try {
      this.file = this.store.open(this.owner);
    } catch {
      // No room in the profile (a full disk): the call's result is cut as before, with no output_id.
      this.ended = true;
      this.pending = [];
      return;
    }
    for (const piece of this.pending.splice(0)) this.store.append(this.file, piece);
  }

  /** The call ended and its result shows everything: nothing is kept. */
  discard(): void {
    this.ended = true;
    this.pending = [];
    if (this.file) this.store.forget(this.file);
  }

  /** The call ended: the id of its kept output, or undefined when it was short enough to keep none. */
  finish(): string | undefined {
    if (this.ended) return this.file?.id;
    this.write(this.carry);
    this.ended = true;
    this.pending = [];
    if (!this.file) return undefined;
    this.store.end(this.file);
    return this.file.id;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
