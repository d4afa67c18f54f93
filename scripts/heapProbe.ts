// For tests that weigh what code keeps: the JS heap in use right after a full collection, so garbage is not counted.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/** Bytes of JS heap in use after a full garbage collection (V8's `gc`, exposed on first use). */
export function heapAfterCollection(): number {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  return process.memoryUsage().heapUsed;
}
