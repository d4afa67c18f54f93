// One SSH target's file operations over its pooled connection: the SFTP session where the server has one, commands on
// exec channels (shell/execFileOps.ts, as plugins without file operations use) where it has none. Which of the two is
// asked once per connection (LiveConnection keeps a refused subsystem), so a reconnect asks again.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { SFTPWrapper, Stats } from 'ssh2';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { FileStat } from '../provider.js';
import { execReadFile, execStat, execWriteFile, type RawExec } from '../shell/execFileOps.js';
import { shellQuote } from '../shell/shellWrap.js';
import { errnoInText, writeError } from '../../platform/index.js';
import type { LiveConnection } from './liveConnection.js';
import { sftpAtomicWrite } from './sftpAtomicWrite.js';
import { assertReadableFile } from '../readableFile.js';

/** SFTP's "file exists" answer to mkdir: another call made the folder meanwhile. */
const SFTP_FAILURE_EXISTS = 4;
/** A helper command of the fallback (staging, removing) that has not answered in this long has failed. */
const helperTimeoutMs = 30_000;

type SftpOp<T> = (sftp: SFTPWrapper, done: (err: Error | undefined | null, value: T | undefined) => void) => void;

/** How this connection reaches files: its SFTP session, or commands when the server has no sftp subsystem. */
type Route = SftpRoute | { live: LiveConnection; sftp: undefined; exec: RawExec };
type SftpRoute = { live: LiveConnection; sftp: SFTPWrapper };

export class SshFiles {
  constructor(
    private readonly connect: () => Promise<LiveConnection>,
    /**
     * Inside a sandbox on the host: what wraps a command so it runs there (undefined: this connection runs none). A
     * sandboxed target's file operations are commands in its sandbox, never SFTP, which runs with the account's powers.
     */
    private readonly sandboxed?: (live: LiveConnection) => Promise<((command: string) => string) | undefined>,
  ) {}

  /** Whether file operations go over commands on the current connection (doctor notes it). */
  async usesCommands(): Promise<boolean> {
    return (await this.route(true)).sftp === undefined;
  }

  async stat(path: string): Promise<FileStat> {
    const r = await this.route();
    return r.sftp ? sftpStat(r, path) : execStat(r.exec, path);
  }

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    const r = await this.route();
    if (!r.sftp) return execReadFile(r.exec, path, maxBytes);
    const st = await sftpStat(r, path);
    assertReadableFile(path, st, maxBytes);
    return onSftp(r, (sftp, done) =>
      sftp.readFile(path, (err, data) => done(err && fileError('read', path, err), data)),
    );
  }

  /** The whole file, atomically, parents made (sftpAtomicWrite, or execWriteFile with the bytes on stdin). */
  async writeFile(path: string, data: Buffer): Promise<void> {
    const r = await this.route();
    if (!r.sftp) return execWriteFile(r.exec, path, data, { stdin: true });
    // A folder that cannot be made is the write's failure, said as one.
    await mkdirs(r, posix.dirname(path)).catch((err: unknown) => {
      throw err instanceof SwitchboardError && err.code === 'bad_request'
        ? writeError(path, errnoInText(err.message), { detail: err.message })
        : err;
    });
    await onSftp<void>(
      r,
      (sftp, done) =>
        void sftpAtomicWrite(sftp, path, data).then(
          () => done(undefined, undefined),
          (err: Error) => done(err, undefined),
        ),
    );
  }

  /** Writes text to a new private file (0600) in `dir` (made 0700 when missing); returns its path. */
  async stage(dir: string, text: string): Promise<string> {
    const path = posix.join(dir, `pass-${randomBytes(8).toString('hex')}.sh`);
    // The Core's own file, outside any sandbox (a sandboxed command cannot write there, nor read it).
    const r = await this.route(true);
    if (!r.sftp) {
      // The text goes on stdin, never on a command line every user of the host can read.
      const out = await r.exec(
        `umask 077 && mkdir -p -- ${shellQuote(dir)} && cat > ${shellQuote(path)} && echo __SB_STAGED__`,
        { stdin: text, timeoutMs: helperTimeoutMs },
      );
      if (!out.output.includes('__SB_STAGED__'))
        throw new SwitchboardError(
          'bad_request',
          `could not write ${path}: ${out.output.trim().split('\n').pop()?.slice(0, 200) || `exit ${out.exitCode}`}`,
        );
      return path;
    }
    if ((await sftpStat(r, dir)).type === 'missing') {
      await mkdirs(r, posix.dirname(dir));
      await onSftp<void>(r, (sftp, done) =>
        // Another call may have made it meanwhile: fine.
        sftp.mkdir(dir, { mode: 0o700 }, (err) =>
          done(
            err && !(isSftpStatus(err) && sftpCode(err) === SFTP_FAILURE_EXISTS)
              ? fileError('create directory', dir, err)
              : undefined,
            undefined,
          ),
        ),
      );
    }
    await onSftp<void>(r, (sftp, done) =>
      sftp.writeFile(path, text, { mode: 0o600 }, (err) => done(err && fileError('write', path, err), undefined)),
    );
    return path;
  }

  /** Removes a file, whatever its state (a staged file a failed start left). */
  async remove(path: string): Promise<void> {
    const r = await this.route(true);
    if (!r.sftp) {
      await r.exec(`rm -f -- ${shellQuote(path)}`, { timeoutMs: helperTimeoutMs });
      return;
    }
    await onSftp<void>(r, (sftp, done) => sftp.unlink(path, () => done(undefined, undefined)));
  }

  /** How file operations reach the host: `own` for the Core's own staged files, never through the sandbox. */
  private async route(own = false): Promise<Route> {
    const live = await this.connect();
    const wrap = own ? undefined : await this.sandboxed?.(live);
    if (wrap) return { live, sftp: undefined, exec: commandsOn(live, wrap) };
    const sftp = await live.sftpOrNone();
    return sftp ? { live, sftp } : { live, sftp: undefined, exec: commandsOn(live) };
  }
}

/** One `sh -c` command line on its own exec channel, stdout and stderr merged: the fallback's RawExec. */
function commandsOn(live: LiveConnection, wrap: (command: string) => string = (c) => c): RawExec {
  // `exec sh -c` keeps the text POSIX whatever the account's login shell is.
  return (command, opts) =>
    live.run(`exec sh -c ${shellQuote(wrap(command))}`, {
      timeoutMs: opts.timeoutMs,
      stderr: true,
      ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
    });
}

function sftpStat(r: SftpRoute, path: string): Promise<FileStat> {
  return onSftp<FileStat>(r, (sftp, done) =>
    sftp.stat(path, (err, st: Stats) => {
      // A status reply (no such file, permission denied) means "not there for us"; other errors are the link's.
      if (err) return isSftpStatus(err) ? done(undefined, { type: 'missing', size: 0 }) : done(err, undefined);
      done(undefined, { type: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other', size: st.size });
    }),
  );
}

/** mkdir -p over SFTP. */
async function mkdirs(r: SftpRoute, dir: string): Promise<void> {
  const st = await sftpStat(r, dir);
  if (st.type === 'directory') return;
  if (st.type !== 'missing') throw new SwitchboardError('bad_request', `cannot create ${dir}: a file is in the way`);
  const parent = posix.dirname(dir);
  if (parent !== dir) await mkdirs(r, parent);
  await onSftp<void>(r, (sftp, done) =>
    sftp.mkdir(dir, (err) => {
      // Someone else may have made it meanwhile; that is fine.
      if (err && isSftpStatus(err) && sftpCode(err) === SFTP_FAILURE_EXISTS) return done(undefined, undefined);
      done(err && fileError('create directory', dir, err), undefined);
    }),
  );
}

/** Run one SFTP request; a dropped connection rejects it instead of leaving it pending. */
function onSftp<T>(r: SftpRoute, op: SftpOp<T>): Promise<T> {
  const { live, sftp } = r;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const off = live.onLost((err) => settle(err, undefined));
    function settle(err: Error | undefined | null, value: T | undefined): void {
      if (settled) return;
      settled = true;
      off();
      if (err)
        reject(
          err instanceof SwitchboardError
            ? err
            : live.isAlive
              ? new SwitchboardError('internal', `SFTP on ${live.label} failed: ${err.message}`)
              : live.lostError(),
        );
      else resolve(value as T);
    }
    op(sftp, settle);
  });
}

function sftpCode(err: Error): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/** SFTP status replies carry a numeric code; transport failures do not. */
function isSftpStatus(err: Error): boolean {
  return sftpCode(err) !== undefined;
}

function fileError(what: string, path: string, err: Error): Error {
  const code = sftpCode(err);
  if (code === undefined) return err;
  const why = code === 2 ? 'no such file or directory' : code === 3 ? 'permission denied' : err.message;
  return new SwitchboardError('bad_request', `could not ${what} ${path}: ${why}`);
}
