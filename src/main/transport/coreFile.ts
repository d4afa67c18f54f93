// core.json: where the running Core listens and its token; mode 0600, removed on exit.
import { readFileSync, rmSync } from 'node:fs';
import { atomicWriteSync, profileWriteError, FileLock, type HeldLock, pidAlive } from '../core/platform/index.js';
import { join } from 'node:path';
import * as z from 'zod';
import { SwitchboardError } from '../../shared/errors.js';
import { coreExited, invalidCoreFile, noCoreFile, type CoreProblem } from './coreEndpoint.js';

export const CoreFile = z.object({
  url: z.string(),
  ws_url: z.string(),
  mcp_url: z.string(),
  token: z.string(),
  pid: z.number().int(),
  started_at: z.string(),
  mode: z.enum(['serve', 'electron']),
});
export type CoreFile = z.infer<typeof CoreFile>;

/**
 * A person link: the page's URL with the token in the query and a one-time code in the #fragment (never sent to a
 * server); the page trades the code once for the person's cookie.
 */
export function personLinkUrl(url: string, token: string, code: string): string {
  return `${url}?token=${encodeURIComponent(token)}#code=${encodeURIComponent(code)}`;
}

export function coreFilePath(home: string): string {
  return join(home, 'core.json');
}

/** Publish core.json whole (a temp file renamed over it); a failure names the file and leaves no temp file. */
export function writeCoreFile(home: string, info: CoreFile): void {
  atomicWriteSync(
    coreFilePath(home),
    JSON.stringify(info, null, 2) + '\n',
    0o600,
    'starting the Core (publishing where it listens, for the CLI and MCP clients)',
  );
}

/** Remove core.json if it is still ours (another Core may have replaced it). */
export function removeCoreFile(home: string, pid = process.pid): void {
  try {
    const cur = CoreFile.parse(JSON.parse(readFileSync(coreFilePath(home), 'utf8')));
    if (cur.pid !== pid) return;
  } catch {
    // no core.json, or another's: nothing of ours to remove
    return;
  }
  rmSync(coreFilePath(home), { force: true });
}

/** The running Core's endpoint, or a no_core error a person can act on (in coreEndpoint.ts's words). */
export function readCoreFile(home: string): CoreFile {
  const path = coreFilePath(home);
  const fail = ({ problem, hint }: CoreProblem): never => {
    throw new SwitchboardError('no_core', problem, hint);
  };
  let raw = '';
  try {
    raw = readFileSync(path, 'utf8');
  } catch {
    fail(noCoreFile(path));
  }
  let info: CoreFile | undefined;
  try {
    info = CoreFile.parse(JSON.parse(raw));
  } catch {
    fail(invalidCoreFile(path));
  }
  if (!pidAlive(info!.pid)) fail(coreExited(path, info!.pid));
  return info!;
}

/** How long a Core starting on a profile waits for one that is still stopping (or starting) there. */
export const STOPPING_WAIT_MS = 20_000;
const STOPPING_POLL_MS = 100;

/** The live Core that core.json names, or undefined when there is none (absent, invalid, or its pid gone). */
function liveCoreFile(home: string): CoreFile | undefined {
  try {
    return readCoreFile(home);
  } catch {
    // no core.json, or one of a Core that has exited: no Core is serving
    return undefined;
  }
}

/**
 * One Core per profile: held for the Core's whole life (taken over only when its holder's process is gone). A
 * second Core would overwrite core.json, delete it on exit, and leave the first serving a window nobody can reach.
 * A Core that holds the lock without a core.json is stopping (it removes the file first) or still starting: the new
 * one waits for it, up to `waitMs`, so a Core started again at once (a restart) starts once the old one is gone
 * instead of refusing. `onWait` hears once that it waits, and for which process.
 */
export async function claimProfile(
  home: string,
  opts: { waitMs?: number; onWait?: (pid: number | undefined) => void } = {},
): Promise<HeldLock> {
  const lock = new FileLock(coreFilePath(home), { timeoutMs: 0, staleMs: Number.MAX_SAFE_INTEGER });
  const deadline = Date.now() + (opts.waitMs ?? STOPPING_WAIT_MS);
  let told = false;
  for (;;) {
    let held: HeldLock | undefined;
    try {
      // A second try follows a takeover of a dead holder's lock.
      held = lock.tryAcquire() ?? lock.tryAcquire();
    } catch (err) {
      throw profileWriteError(err, {
        path: lock.lockDir,
        action: 'create',
        doing: 'starting the Core (claiming the profile for it)',
      });
    }
    if (held) return held;
    const running = liveCoreFile(home);
    if (running) {
      throw new SwitchboardError(
        'core_running',
        `a Switchboard Core already runs for the profile ${home} (pid ${running.pid}, ${running.mode}, ${running.url})`,
        'use that one (its window, or `switchboard` commands reach it), stop it first, ' +
          'or set SWITCHBOARD_HOME to another profile',
      );
    }
    const holder = lock.owner()?.pid;
    if (Date.now() >= deadline) {
      throw new SwitchboardError(
        'core_running',
        `a Switchboard Core${holder ? ` (pid ${holder})` : ''} holds the profile ${home} and has been starting or ` +
          `stopping for over ${Math.ceil((opts.waitMs ?? STOPPING_WAIT_MS) / 1000)} s`,
        `wait for it, or end it${holder ? ` (kill ${holder})` : ''}; or set SWITCHBOARD_HOME to another profile`,
      );
    }
    if (!told) {
      told = true;
      opts.onWait?.(holder);
    }
    await new Promise((r) => setTimeout(r, STOPPING_POLL_MS));
  }
}
