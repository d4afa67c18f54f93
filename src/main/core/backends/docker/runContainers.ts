// Which managed containers each Core run made running, one file per run under state/containers/, so what a Core killed
// without a clean stop (kill -9, a power cut) left running is stopped by the next Core on the profile. A label cannot
// say this: labels are fixed when a container is created, and a container outlives the run that created it.
import { mkdirSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { dockerClient, engineStatus, parseDockerHost } from './dockerEndpoint.js';
import { deadline, killDeadlineMs } from './engineCalls.js';
import { inspectContainer } from './engineHttp.js';
import { atomicWriteSync } from '../../platform/index.js';
import type { StartSweep } from '../provider.js';

/** Seconds a stopping container's processes get between TERM and KILL (PID 1 itself exits at once: keepAliveScript). */
export const stopGraceSeconds = 5;

const Recorded = z.array(z.object({ host: z.string().optional(), id: z.string() }));
type Recorded = z.infer<typeof Recorded>;

function dirOf(home: string): string {
  return join(home, 'state', 'containers');
}

function read(file: string): Recorded {
  try {
    return Recorded.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return []; // absent, or half-written by a run that died writing it
  }
}

/**
 * The record of containers a clean stop could not stop (their engine did not answer): every start tries them, as it
 * tries a crashed run's. Not a run id (those are `<time>-<hex>`), so it never names one.
 */
export const UNSTOPPED = 'unstopped';

/** This run made the container `id` on the engine `host` (a docker_host, or the default) running. */
export function recordContainer(home: string, run: string, host: string | undefined, id: string): void {
  const dir = dirOf(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${run}.json`);
  const list = read(file);
  if (list.some((c) => c.id === id && c.host === host)) return;
  list.push({ ...(host !== undefined ? { host } : {}), id });
  atomicWriteSync(file, JSON.stringify(list));
}

/** Asks the engine to stop one container (TERM, the grace, then KILL); one already stopped or gone is fine. */
export async function requestStop(host: string | undefined, id: string): Promise<void> {
  const endpoint = parseDockerHost(host);
  try {
    // The grace, then as long as any control call: a Core stopping must not wait on a frozen engine for longer.
    await deadline(
      (abortSignal) => dockerClient(endpoint).getContainer(id).stop({ t: stopGraceSeconds, abortSignal }),
      'stop a container',
      stopGraceSeconds * 1000 + killDeadlineMs,
    );
  } catch (err) {
    const status = engineStatus(err);
    if (status !== 304 && status !== 404) throw err;
  }
}

/** Stops one container if it runs; resolves to whether it ran. */
async function stopIfRunning(host: string | undefined, id: string): Promise<boolean> {
  let running: boolean;
  try {
    running = (
      await deadline((abortSignal) => inspectContainer(parseDockerHost(host), id, abortSignal), 'inspect a container')
    ).State.Running;
  } catch (err) {
    if (engineStatus(err) === 404) return false;
    throw err;
  }
  if (running) await requestStop(host, id);
  return running;
}

/**
 * At a Core's start: stops what crashed runs (`stale`) left running and forgets their records; forgets the records of
 * runs that ended cleanly (their run file is gone and they are not stale); keeps those of runs still alive. A record
 * whose engine did not answer is kept, and tried again by the next Core (stale run ids are carried for a week).
 */
export function stopCrashedRunContainers(home: string, stale: readonly string[]): Promise<StartSweep[]> {
  const sweep = sweepRecords(home, stale);
  sweeps.set(
    home,
    sweep.catch(() => undefined), // the caller gets the sweep's error; the map only remembers it ran
  );
  return sweep;
}

/** The start-time sweep of each profile (by home) while it may still stop a container a call is about to use. */
const sweeps = new Map<string, Promise<unknown>>();

/** Resolves once the start-time sweep of `home` is done: a container it stops must not be one a call just started. */
export function crashSweepDone(home: string): Promise<unknown> {
  return sweeps.get(home) ?? Promise.resolve();
}

async function sweepRecords(home: string, stale: readonly string[]): Promise<StartSweep[]> {
  let names: string[];
  try {
    names = readdirSync(dirOf(home)).filter((n) => n.endsWith('.json'));
  } catch {
    // no runs recorded yet: nothing to sweep
    return [];
  }
  const reports: StartSweep[] = [];
  for (const name of names) {
    const run = name.slice(0, -5);
    const file = join(dirOf(home), name);
    if (!stale.includes(run) && run !== UNSTOPPED) {
      if (!existsSync(join(home, 'state', 'runs', name))) rmSync(file, { force: true });
      continue;
    }
    const left: Recorded = [];
    for (const c of read(file)) {
      const where = `containers on ${parseDockerHost(c.host).label}`;
      try {
        if (await stopIfRunning(c.host, c.id)) reports.push({ where, found: 1 });
      } catch (err) {
        left.push(c);
        reports.push({ where, found: 0, problem: err instanceof Error ? err.message : String(err) });
      }
    }
    if (left.length === 0) rmSync(file, { force: true });
    else atomicWriteSync(file, JSON.stringify(left));
  }
  return reports;
}
