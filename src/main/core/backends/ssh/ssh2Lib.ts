// ssh2, loaded when an SSH target is first dialled or a key is first read: a Core without SSH targets never pays for
// it.
import { createRequire } from 'node:module';

export const loadSsh2 = (): typeof import('ssh2') => createRequire(import.meta.url)('ssh2') as typeof import('ssh2');
