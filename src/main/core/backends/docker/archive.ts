// Tar archives for the Engine's archive API (put a file, get a file), packed and read with tar-stream.
import type { Readable } from 'node:stream';
import { createRequire } from 'node:module';

/** tar-stream (and its readable-stream stack) loads with the first file moved to or from a container. */
let tarStream: typeof import('tar-stream') | undefined;
const loadTarStream = (): typeof import('tar-stream') =>
  (tarStream ??= createRequire(import.meta.url)('tar-stream') as typeof import('tar-stream'));

export interface TarInput {
  /** Relative path; directories may end with `/`. */
  name: string;
  type: 'file' | 'directory';
  /** Permission bits, e.g. 0o644. */
  mode: number;
  data?: Buffer;
}

/** An archive of these entries (long names go in PAX headers, which the Engine reads). */
export function packArchive(entries: readonly TarInput[]): Readable {
  const p = loadTarStream().pack();
  for (const e of entries) {
    const name = e.name.replace(/^\/+/, '');
    if (e.type === 'directory') p.entry({ name, type: 'directory', mode: e.mode });
    else p.entry({ name, type: 'file', mode: e.mode }, e.data ?? Buffer.alloc(0));
  }
  p.finalize();
  return p;
}

/**
 * The content of the first regular file in an archive stream, or undefined when it has none. Past `limit` bytes
 * it stops reading and throws RangeError (a file that grew since it was measured).
 */
export function readFirstFile(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const x = loadTarStream().extract();
    let found: Buffer | undefined;
    let failed = false;
    const fail = (err: Error): void => {
      if (failed) return;
      failed = true;
      (stream as unknown as { destroy?: () => void }).destroy?.();
      x.destroy();
      reject(err);
    };
    x.on('entry', (headers, entry, next) => {
      if (found !== undefined || headers.type !== 'file') {
        entry.on('end', () => next());
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      entry.on('data', (b: Buffer) => {
        size += b.length;
        if (size > limit) return fail(new RangeError('file larger than limit'));
        chunks.push(b);
      });
      entry.on('end', () => {
        found = Buffer.concat(chunks);
        next();
      });
    });
    x.on('finish', () => {
      if (!failed) resolve(found);
    });
    x.on('error', fail);
    stream.on('error', (err: Error) => fail(err));
    stream.pipe(x);
  });
}
