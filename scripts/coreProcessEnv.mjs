// The environment `npm start` gives the Core's process (serve or Electron), and the bench measures it with.
//
// glibc raises its trim threshold to twice the largest block it has freed from mmap (one freed 2 MB buffer, such as
// the read of the Core's bundle at start, makes it 4 MB), so each malloc arena keeps up to that much freed memory for
// good. With the threshold set, the threshold stays fixed: the Core's RSS after local, SSH and Docker work is about
// 73 MB instead of 84, for no CPU per call we could measure (bench P2–P4, P12). glibc reads it once, at the process's
// start, so only a launcher can set it. The Core takes it out of its own environment at start (core/launcherEnv.ts):
// its panes and commands run with the malloc people have.
export const TRIM_THRESHOLD = '131072';

/** `env` with the Core's allocator setting, unless the person set one of their own. */
export function coreProcessEnv(env = process.env) {
  if (env.MALLOC_TRIM_THRESHOLD_ !== undefined) return { ...env };
  return { ...env, MALLOC_TRIM_THRESHOLD_: TRIM_THRESHOLD, SWITCHBOARD_LAUNCHER_MALLOC: '1' };
}
