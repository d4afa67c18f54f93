// Appends one JSON line per dispatch and per approval decision to audit.jsonl; secrets are redacted first. Each
// line is chained to the one before it (auditChain.ts), so `switchboard audit verify` finds a line changed after.
// On a full disk a line is written whole or not at all; lost lines are counted and said by the next line written.
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writeError } from '../platform/index.js';
import { redact } from '../../../shared/redact.js';
import {
  chainLine,
  chainTail,
  headPath,
  headText,
  lineHash,
  parseHead,
  withLost,
  type ChainHead,
  type ChainState,
} from './auditChain.js';
import type { PersonWay } from '../../../shared/personWay.js';

export interface AuditRecord {
  time: string;
  /**
   * sweep: processes a crashed Core run left behind, found and ended by this one; action: what a person did from a
   * client (kill, add/remove a target); pane: a pane opened or closed through the API (never what is typed in it).
   */
  kind: 'dispatch' | 'approval' | 'sweep' | 'action' | 'pane';
  client: string;
  tool?: string;
  execution_target?: string;
  generation?: string;
  args?: string;
  outcome: string;
  duration_ms?: number;
  error?: string;
  /** On the line of a person's decision or action: how the person was known (shared/personWay.ts). */
  person?: PersonWay;
  [key: string]: unknown;
}

/** The head file, opened for rewriting in place (not for appending: an append ignores the offset). */
function openHead(path: string): number {
  try {
    return openSync(path, 'r+');
  } catch {
    // no log yet: it is created
    return openSync(path, 'w+', 0o600);
  }
}

function readHead(fd: number): ChainHead | undefined {
  const buf = Buffer.alloc(256);
  return parseHead(buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8'));
}

/**
 * Where to continue: after the log's last line, unless the head says lines were written that are no longer there, or
 * that the last one was different. Then the chain goes on from the head, so the gap stays in it for `audit verify`
 * to find, rather than being papered over by a Core that starts after the log was cut or edited.
 */
function continueFrom(tail: ChainState, head: ChainHead | undefined): ChainState {
  if (!head || head.seq < tail.seq - 1) return tail;
  if (head.seq === tail.seq - 1 && head.hash === tail.prev) return tail;
  return { seq: head.seq + 1, prev: head.hash };
}

/** A write(2) that took only part of the bytes (a full disk takes what fits); the part was cut off again. */
class ShortWrite extends Error {
  readonly code = 'ENOSPC';
}

/**
 * Append `buf` with one write, whole or not at all: a short write (the disk took only what fitted) is cut back to
 * where the file ended, so the log never holds part of a line and the next line starts on a line of its own.
 */
function appendWhole(fd: number, buf: Buffer): void {
  const size = fstatSync(fd).size;
  const n = writeSync(fd, buf);
  if (n === buf.length) return;
  ftruncateSync(fd, size);
  throw new ShortWrite(`wrote ${n} of ${buf.length} bytes`);
}

/** Fields that hold no free text, or text already redacted by whoever made the record. */
const preRedacted = new Set([
  'time',
  'kind',
  'call_id',
  'client',
  'tool',
  'execution_target',
  'generation',
  'args',
  'outcome',
  'error',
  'verdict',
  'by',
  'scope',
  'action',
  'pane_id',
  'approval',
  'approved_by',
  'person',
]);

export class AuditLog {
  readonly path: string;
  private flushed: Promise<void> = Promise.resolve();
  /** Records waiting for the next write, as JSON: those of calls that finished together go out in one write. */
  private pending: string[] = [];
  /**
   * Kept open between writes, and written to directly: an append to a local file takes microseconds, less than
   * handing it to the thread pool (and an open and a close per line cost more than the write itself).
   */
  private fd: number | undefined;
  /** The head file, rewritten in place after each write. */
  private headFd: number | undefined;
  /** Where the chain stands: read from the log's last line when the file is opened, then kept here. */
  private chain: ChainState | undefined;

  constructor(home: string) {
    this.path = join(home, 'audit.jsonl');
  }

  write(record: AuditRecord): void {
    const first = this.pending.length === 0;
    // The chain's own fields are the log's to set.
    const { seq: _seq, prev: _prev, ...fields } = record;
    // Any other text (a deny reason a person typed, a policy's reason quoting the command) is redacted here, so a field
    // added later cannot bring a secret in; args and error come redacted from their makers, names and ids hold none.
    for (const [key, value] of Object.entries(fields))
      if (typeof value === 'string' && !preRedacted.has(key)) fields[key] = redact(value);
    this.pending.push(JSON.stringify(fields));
    if (!first) return;
    // After a turn of the event loop, so the answer to the call goes out first.
    this.flushed = new Promise((resolve) => setImmediate(() => resolve(this.writePending())));
  }

  /** Resolves once every line written so far is in the file. */
  flush(): Promise<void> {
    return this.flushed;
  }

  /** Flush, then let go of the file. */
  async close(): Promise<void> {
    await this.flushed;
    this.release();
  }

  /**
   * Lines that could not be written since the last one that was. They take no place in the chain (no `seq`): the next
   * line written carries `audit_lost: N`, hashed with it, so `audit verify` reads a gap that is said, not tampering.
   */
  private lost = 0;
  /** Lines lost since this Core started, and why the last one was, for doctor. */
  private lostTotal = 0;
  private lostWhy: string | undefined;

  /** Doctor's line while this Core has lost audit lines, or undefined. */
  problem(): string | undefined {
    if (!this.lostTotal) return undefined;
    const still = this.lost ? `, ${this.lost} not yet said in the log` : '';
    return (
      `audit log: ${this.lostTotal} line${this.lostTotal === 1 ? '' : 's'} lost since the Core started${still} ` +
      `(${this.lostWhy})`
    );
  }

  private writePending(): void {
    const records = this.pending;
    this.pending = [];
    try {
      let start = '';
      if (this.fd === undefined) {
        this.fd = openSync(this.path, 'a+', 0o600);
        this.headFd = openHead(headPath(this.path));
        // A Core that opens an existing log continues its chain from the last line; a cut last line is ended first.
        const tail = chainTail(this.fd);
        if (tail.newline) start = '\n';
        this.chain = continueFrom(tail, readHead(this.headFd));
      }
      let { seq, prev } = this.chain!;
      let text = start;
      for (const [i, json] of records.entries()) {
        const line = chainLine(i === 0 ? withLost(json, this.lost) : json, { seq, prev });
        text += line + '\n';
        prev = lineHash(line);
        seq++;
      }
      appendWhole(this.fd, Buffer.from(text));
      this.chain = { seq, prev };
      if (this.lost) {
        process.stderr.write(
          `switchboard: the audit log is written again; ${this.lost} ` +
            `line${this.lost === 1 ? ' was' : 's were'} lost, said by line ${seq - records.length} ` +
            `(audit_lost)\n`,
        );
        this.lost = 0;
      }
    } catch (err) {
      // A failed write is not a failed call. The log holds no part of these lines (appendWhole); they are counted,
      // and said by the next line written. A file that could not be opened is opened again next time.
      if (!this.lost)
        process.stderr.write(
          `switchboard: audit line lost: ${this.lossLine(err)}; lost lines are counted and said in the log ` +
            `once it takes lines again\n`,
        );
      this.lost += records.length;
      this.lostTotal += records.length;
      this.lostWhy = this.lossLine(err);
      if (!(err instanceof ShortWrite)) this.release();
      return;
    }
    try {
      writeSync(this.headFd!, headText({ seq: this.chain.seq - 1, hash: this.chain.prev }), 0);
    } catch {
      // The head, rewritten in place, needs no new block; should it fail, it names an earlier line, which verify and
      // the next Core both take (it only vouches for less of the end).
    }
  }

  private lossLine(err: unknown): string {
    return writeError(this.path, (err as NodeJS.ErrnoException).code, { detail: String(err) }).message.replace(
      /; the file is unchanged$/,
      '',
    );
  }

  private release(): void {
    for (const fd of [this.fd, this.headFd]) {
      try {
        if (fd !== undefined) closeSync(fd);
      } catch {
        /* already gone */
      }
    }
    this.fd = undefined;
    this.headFd = undefined;
    this.chain = undefined;
  }
}
