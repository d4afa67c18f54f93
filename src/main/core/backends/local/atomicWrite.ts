// A file write on this machine that is whole or not at all (writeWhole.ts), its failure said in the one line every
// backend says (writeError.ts).
import { writeError } from '../writeError.js';
import { WriteFailure, writeWhole } from './writeWhole.js';

export async function atomicWrite(path: string, data: Buffer): Promise<void> {
  try {
    await writeWhole(path, data);
  } catch (err) {
    if (!(err instanceof WriteFailure)) throw err;
    throw writeError(path, err.errno, { detail: err.detail, inPlace: err.inPlace });
  }
}
