// What a launcher put in the Core's environment for the Core alone (scripts/coreProcessEnv.mjs): glibc read it when
// the process started, so the Core takes it out again and the processes it starts (panes, commands, plugin hosts) get
// the environment the person has.

/** Set by the launcher beside the malloc setting it added (never when the person set one themselves). */
const MARK = 'SWITCHBOARD_LAUNCHER_MALLOC';

export function dropLauncherEnv(env: NodeJS.ProcessEnv = process.env): void {
  if (env[MARK] === undefined) return;
  delete env.MALLOC_TRIM_THRESHOLD_;
  delete env[MARK];
}
