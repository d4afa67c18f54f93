// The Core's one log: what went wrong where nobody was waiting for an answer (a cleanup that failed, a plugin host
// that would not start), so a fault in the field leaves a trace. Each line names its level and the noun that wrote it,
// is redacted, goes to the profile's switchboard.log (rotated), and with SWITCHBOARD_DEBUG to stderr too.
import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from '../../../shared/redact.js';

export const logLevels = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof logLevels)[number];

/** A log as a noun sees it: its lines carry the noun's name. */
export interface Log {
  debug(message: string, err?: unknown): void;
  info(message: string, err?: unknown): void;
  warn(message: string, err?: unknown): void;
  error(message: string, err?: unknown): void;
  /** The same log, its lines naming `noun` (`plugins`, `ssh`, …). */
  for(noun: string): Log;
}

/** The file's size at which it is rotated, and how many old files are kept (switchboard.log.1 … .3). */
export const LOG_ROTATE_BYTES = 5 * 1024 * 1024;
export const LOG_KEEP_FILES = 3;

export interface FileLogOptions {
  /** The log file (the profile's switchboard.log); none: stderr only (under debug). */
  file?: string;
  /** SWITCHBOARD_DEBUG by default: debug lines are kept too, and every line is also written to stderr. */
  debug?: boolean;
  rotateBytes?: number;
  keepFiles?: number;
  /** Where debug lines are echoed (tests catch them). */
  stderr?: (line: string) => void;
  now?: () => Date;
}

/** One line: no newline inside it (an error's own lines are joined), never a credential. */
export function logLine(time: Date, level: LogLevel, noun: string, message: string, err?: unknown): string {
  const cause = err === undefined ? '' : `: ${errorText(err)}`;
  const text = `${message}${cause}`.replace(/\r?\n/g, ' | ');
  return `${time.toISOString()} ${level.padEnd(5)} ${noun}: ${redact(text)}`;
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

/** Writes to one file, rotated at a size, shared by every noun's view of it. */
class LogFile {
  private size: number | undefined;

  constructor(
    private readonly path: string,
    private readonly rotateBytes: number,
    private readonly keep: number,
  ) {}

  append(line: string): void {
    const bytes = Buffer.byteLength(line) + 1;
    try {
      if (this.size === undefined) {
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
        this.size = fileSize(this.path);
      }
      if (this.size > 0 && this.size + bytes > this.rotateBytes) this.rotate();
      appendFileSync(this.path, `${line}\n`, { mode: 0o600 });
      this.size += bytes;
    } catch {
      // A log that cannot be written (a full disk, a removed profile) must not fail what it reports on; the size is
      // read again at the next line.
      this.size = undefined;
    }
  }

  /** switchboard.log → .1 → .2 …; the oldest beyond `keep` is dropped. */
  private rotate(): void {
    rmSync(`${this.path}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) {
      if (fileSize(`${this.path}.${i}`) >= 0) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    }
    renameSync(this.path, `${this.path}.1`);
    this.size = 0;
  }
}

/** The size of a file, -1 when there is none. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1; // no file yet: the first line creates it
  }
}

/** The log the Core writes: one file for every noun, each line naming the noun that wrote it. */
export function fileLog(opts: FileLogOptions = {}): Log {
  const debug = opts.debug ?? !!process.env.SWITCHBOARD_DEBUG;
  const file = opts.file
    ? new LogFile(opts.file, opts.rotateBytes ?? LOG_ROTATE_BYTES, opts.keepFiles ?? LOG_KEEP_FILES)
    : undefined;
  const stderr = opts.stderr ?? ((line: string) => process.stderr.write(`switchboard ${line}\n`));
  const now = opts.now ?? (() => new Date());
  const write = (noun: string, level: LogLevel, message: string, err?: unknown): void => {
    if (level === 'debug' && !debug) return;
    const line = logLine(now(), level, noun, message, err);
    file?.append(line);
    if (debug) stderr(line);
  };
  const view = (noun: string): Log => ({
    debug: (m, e) => write(noun, 'debug', m, e),
    info: (m, e) => write(noun, 'info', m, e),
    warn: (m, e) => write(noun, 'warn', m, e),
    error: (m, e) => write(noun, 'error', m, e),
    for: (n) => view(n),
  });
  return view('core');
}

/** A log that keeps nothing: for nouns built outside a Core (tests, CLI helpers) that were given none. */
export const nullLog: Log = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  for: () => nullLog,
};
