// Files in a container through the Engine's archive API: no process, no tools needed in the image to read; a write is
// put in place by `mv` where the image has it (see writeFile).
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { Container } from 'dockerode';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { FileStat } from '../provider.js';
import { shellQuote } from '../shell/shellWrap.js';
import { errnoInText, writeError } from '../../platform/index.js';
import { packArchive, readFirstFile, type TarInput } from './archive.js';
import { engineError, engineStatus, type DockerEndpoint } from './dockerEndpoint.js';
import { deadline } from './engineCalls.js';
import { parsePathStat, type PathStat } from './pathStat.js';
import { assertReadableFile } from '../readableFile.js';

/** How long putting a written file in place (one short exec) may take. */
const PLACE_DEADLINE_MS = 30_000;

/**
 * Runs a short sh script in the container as root, as the archive API itself writes: its output and exit code (null
 * when it could not run). A tty, so the output comes as it is, not multiplexed.
 */
async function rootScript(container: Container, script: string): Promise<{ output: string; exitCode: number | null }> {
  return deadline(
    async (abortSignal) => {
      const exec = await container.exec({
        Cmd: ['sh', '-c', script],
        User: '0',
        AttachStdout: true,
        AttachStderr: true,
        Tty: true,
        abortSignal,
      });
      const stream = await exec.start({ Tty: true, abortSignal });
      let output = '';
      await new Promise<void>((resolve, reject) => {
        stream.on('data', (b: Buffer) => (output += b.toString('utf8')));
        stream.once('end', resolve);
        stream.once('close', resolve);
        stream.once('error', reject);
      });
      const info = await exec.inspect();
      return { output, exitCode: info.ExitCode ?? null };
    },
    'put a written file in place',
    PLACE_DEADLINE_MS,
  );
}

export class ContainerFiles {
  /** Per container id: does its image have the sh and mv an atomic write needs? Asked once. */
  private readonly canRename = new Map<string, Promise<boolean>>();

  /** `containerUser` is the image's configured user: files written for it are given to it (copyUIDGID). */
  constructor(
    private readonly endpoint: DockerEndpoint,
    private readonly containerUser: () => string | undefined,
  ) {}

  /** Stat a path, following a final symlink (the Engine hands back its resolved target). */
  async statPath(container: Container, path: string): Promise<(PathStat & { path: string }) | undefined> {
    let current = path;
    for (let hop = 0; hop < 8; hop++) {
      const st = await this.statRaw(container, current);
      if (!st) return undefined;
      if (st.type !== 'symlink') return { ...st, path: current };
      if (!st.linkTarget || st.linkTarget === current) return undefined;
      current = st.linkTarget;
    }
    return undefined;
  }

  private async statRaw(container: Container, path: string): Promise<PathStat | undefined> {
    try {
      const res = (await deadline((abortSignal) => container.infoArchive({ path, abortSignal }), 'stat a path')) as {
        headers?: Record<string, string | string[] | undefined>;
        resume?: () => void;
      };
      res.resume?.();
      const header = res.headers?.['x-docker-container-path-stat'];
      return parsePathStat(Array.isArray(header) ? header[0] : header);
    } catch (err) {
      // 404: no such path; 500 (HEAD has no body to tell more): a parent is not a directory; 400: a bad path.
      // All mean "not there" to a caller; the container itself was just ensured.
      const status = engineStatus(err);
      if (status === 404 || status === 400 || status === 500) return undefined;
      throw engineError(this.endpoint, err, `stat ${path}`);
    }
  }

  async stat(container: Container, path: string): Promise<FileStat> {
    const st = await this.statPath(container, absolute(path));
    if (!st) return { type: 'missing', size: 0 };
    return { type: st.type === 'symlink' ? 'other' : st.type, size: st.size };
  }

  async readFile(container: Container, path: string, maxBytes: number): Promise<Buffer> {
    const st = await this.statPath(container, absolute(path));
    assertReadableFile(path, st, maxBytes);
    let data: Buffer | undefined;
    try {
      const stream = await deadline(
        (abortSignal) => container.getArchive({ path: st.path, abortSignal }),
        'read a file',
      );
      // A file that grew past the limit since stat is refused.
      data = await readFirstFile(stream, maxBytes);
    } catch (err) {
      if (err instanceof RangeError)
        throw new SwitchboardError('too_large', `${path} grew past ${maxBytes} bytes while being read`);
      throw engineError(this.endpoint, err, `read ${path}`);
    }
    if (!data) throw new SwitchboardError('internal', `the engine returned no file for ${path}`);
    return data;
  }

  async writeFile(container: Container, path: string, data: Buffer): Promise<void> {
    let target = absolute(path);
    const existing = await this.statPath(container, target);
    if (existing) {
      if (existing.type === 'directory') throw new SwitchboardError('bad_request', `${path} is a directory`);
      target = existing.path;
    }
    // Walk up to the nearest existing directory; the missing ones travel in the tar. We never put a tar
    // at a directory that exists with an entry for it, because extraction would reset its owner and mode.
    const missing: string[] = [];
    let base = posix.dirname(target);
    for (;;) {
      const st = await this.statPath(container, base);
      if (st) {
        if (st.type !== 'directory')
          throw new SwitchboardError('bad_request', `cannot write ${path}: ${base} is not a directory`);
        base = st.path;
        break;
      }
      missing.unshift(posix.basename(base));
      base = posix.dirname(base);
    }
    const entries: TarInput[] = missing.map((_, i) => ({
      name: missing.slice(0, i + 1).join('/'),
      type: 'directory',
      mode: 0o755,
    }));
    // copyUIDGID gives new files to the container's user, as if its shell had written them.
    const copyUIDGID = Boolean(this.containerUser());
    const put = async (name: string): Promise<void> => {
      entries.push({
        name: [...missing, name].join('/'),
        type: 'file',
        mode: existing?.type === 'file' ? existing.perm : 0o644,
        data,
      });
      const res = await container.putArchive(packArchive(entries), {
        path: base,
        noOverwriteDirNonDir: true,
        copyUIDGID,
      });
      (res as { resume?: () => void }).resume?.();
    };
    const failed = (err: unknown): SwitchboardError => {
      const e = engineError(this.endpoint, err, `write ${path}`);
      const code = errnoInText(e.message);
      return code ? writeError(path, code, { detail: e.message }) : e;
    };
    // The Engine removes an existing file before it extracts the new one, so a put straight over it that fails (a
    // full disk) leaves the file cut. Hence a temp file beside it, then mv over it inside the container. An image
    // without sh and mv (scratch, distroless) gets the direct put: there is nothing else to rename with.
    if (!(await this.renames(container))) {
      try {
        await put(posix.basename(target));
      } catch (err) {
        throw failed(err);
      }
      return;
    }
    const temp = posix.join(
      posix.dirname(target),
      `.${posix.basename(target)}.sb-${randomBytes(6).toString('hex')}.tmp`,
    );
    try {
      await put(posix.basename(temp));
    } catch (err) {
      // Best effort: the write's own error is what the caller needs.
      await rootScript(container, `rm -f -- ${shellQuote(temp)}`).catch(() => undefined);
      throw failed(err);
    }
    // The original's owner where stat and chown can (BusyBox has no --reference); flushed where sync takes a file.
    const r = await rootScript(
      container,
      `t=${shellQuote(temp)} f=${shellQuote(target)}; if [ -e "$f" ]; ` +
        `then o=$(stat -c %u:%g -- "$f" 2>/dev/null) && chown "$o" "$t" 2>/dev/null; fi; ` +
        `sync -- "$t" 2>/dev/null; mv -f -- "$t" "$f" && echo __SB_MOVED__ || { rm -f -- "$t"; exit 1; }`,
    ).catch((err: unknown) => ({ output: String(err), exitCode: null }));
    if (r.exitCode !== 0 || !r.output.includes('__SB_MOVED__'))
      throw writeError(path, errnoInText(r.output), { detail: r.output.trim() || `exit ${r.exitCode}` });
  }

  private renames(container: Container): Promise<boolean> {
    let known = this.canRename.get(container.id);
    if (!known) {
      known = rootScript(container, 'command -v mv >/dev/null && echo __SB_MV__').then(
        (r) => r.output.includes('__SB_MV__'),
        () => false,
      );
      this.canRename.set(container.id, known);
    }
    return known;
  }
}

export function absolute(path: string): string {
  if (!path.startsWith('/'))
    throw new SwitchboardError('bad_request', `paths in a container must be absolute: ${path}`);
  return posix.normalize(path);
}
