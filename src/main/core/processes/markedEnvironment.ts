// Every process an Environment starts carries this Core run's marker (coreRuns.ts); the first time this run reaches
// a remote or container target, what crashed runs left there is swept.
import type { BackendProvider, Environment, ExecOptions } from '../backends/provider.js';
import { sweepScript, type CoreRuns } from './coreRuns.js';

export interface SweepReport {
  identity: string;
  found: number;
  problem?: string;
}

/**
 * The provider, with environments that mark what they start. Every method of Environment is listed: one added to
 * the interface without a line here fails to compile (the object must satisfy Environment).
 */
export function markedProvider(provider: BackendProvider, runs: CoreRuns, onSweep: (r: SweepReport) => void): BackendProvider {
  const mark = runs.marker();
  const withMark = <O extends { env?: Record<string, string> }>(o: O): O => ({ ...o, env: { ...o.env, ...mark } });
  // Local processes were swept at start, in process; a remote host or a container is swept on first reach.
  const sweepsRemotely = provider.flags.is_remote || provider.flags.is_container;
  return {
    ...provider,
    createEnvironment(snapshot, ctx) {
      const env = provider.createEnvironment(snapshot, ctx);
      const marked: Environment = {
        identity: env.identity,
        home: () => env.home(),
        exec: (command, opts: ExecOptions) => env.exec(command, withMark(opts)),
        openShell: (opts) => env.openShell(withMark(opts)),
        spawnBackground: (command, opts) => env.spawnBackground(command, withMark(opts)),
        readFile: (path, maxBytes) => env.readFile(path, maxBytes),
        writeFile: (path, data) => env.writeFile(path, data),
        stat: (path) => env.stat(path),
        probe: () => env.probe(),
        cleanup: (reason) => env.cleanup(reason),
      };
      if (sweepsRemotely && runs.stale.length > 0) {
        env.exec(sweepScript(runs.stale), { cwd: '/', timeoutMs: 60_000, maxOutputChars: 4096, env: mark }).then(
          (r) => onSweep({ identity: env.identity, found: Number(/swept (\d+)/.exec(r.output)?.[1] ?? 0) }),
          (err: unknown) => onSweep({ identity: env.identity, found: 0, problem: err instanceof Error ? err.message : String(err) }),
        );
      }
      return marked;
    },
  };
}
