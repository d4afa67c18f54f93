// Files in a container through the Engine's archive API: no process, no tools needed in the image.
import { posix } from 'node:path';
import type { Container } from 'dockerode';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { FileStat } from '../provider.js';
import { packArchive, readFirstFile, type TarInput } from './archive.js';
import { engineError, engineStatus, type DockerEndpoint } from './dockerEndpoint.js';
import { deadline } from './engineCalls.js';
import { parsePathStat, type PathStat } from './pathStat.js';

export class ContainerFiles {
  /** `containerUser` is the image's configured user: files written for it are given to it (copyUIDGID). */
  constructor(private readonly endpoint: DockerEndpoint, private readonly containerUser: () => string | undefined) {}

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
      const res = (await deadline((abortSignal) => container.infoArchive({ path, abortSignal }), 'stat a path')) as { headers?: Record<string, string | string[] | undefined>; resume?: () => void };
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
    if (!st) throw new SwitchboardError('bad_request', `no such file: ${path}`);
    if (st.type !== 'file') throw new SwitchboardError('bad_request', `not a regular file: ${path}`);
    if (st.size > maxBytes) throw new SwitchboardError('too_large', `${path} is ${st.size} bytes; the limit is ${maxBytes}`, 'read a part of it with offset and limit, or use terminal with head/tail');
    let data: Buffer | undefined;
    try {
      const stream = await deadline((abortSignal) => container.getArchive({ path: st.path, abortSignal }), 'read a file');
      // A file that grew past the limit since stat is refused.
      data = await readFirstFile(stream, maxBytes);
    } catch (err) {
      if (err instanceof RangeError) throw new SwitchboardError('too_large', `${path} grew past ${maxBytes} bytes while being read`);
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
        if (st.type !== 'directory') throw new SwitchboardError('bad_request', `cannot write ${path}: ${base} is not a directory`);
        base = st.path;
        break;
      }
      missing.unshift(posix.basename(base));
      base = posix.dirname(base);
    }
    const entries: TarInput[] = missing.map((_, i) => ({ name: missing.slice(0, i + 1).join('/'), type: 'directory', mode: 0o755 }));
    entries.push({
      name: [...missing, posix.basename(target)].join('/'),
      type: 'file',
      mode: existing?.type === 'file' ? existing.perm : 0o644,
      data,
    });
    // copyUIDGID gives new files to the container's user, as if its shell had written them.
    const copyUIDGID = Boolean(this.containerUser());
    try {
      const res = await container.putArchive(packArchive(entries), { path: base, noOverwriteDirNonDir: true, copyUIDGID });
      (res as { resume?: () => void }).resume?.();
    } catch (err) {
      throw engineError(this.endpoint, err, `write ${path}`);
    }
  }
}

export function absolute(path: string): string {
  if (!path.startsWith('/')) throw new SwitchboardError('bad_request', `paths in a container must be absolute: ${path}`);
  return posix.normalize(path);
}
