// Every process an Environment starts carries this Core run's marker and its own call's (coreRuns.ts). What a
// crashed run left on a remote or container target is swept the first time this run reaches it; a command cut off
// from its target mid-call (the host or the engine went away) is swept once the target answers again.
import { randomHex } from '../platform/index.js';
import { SwitchboardError } from '../../../shared/errors.js';
import type { BackendProvider, Environment, ExecOptions } from '../backends/index.js';
import { AGENT_VARIABLE, CALL_VARIABLE, runMarks, sweepScript, type CoreRuns } from './coreRuns.js';

export interface SweepReport {
  identity: string;
  found: number;
  problem?: string;
  /** What was swept: what crashed runs left, or calls cut off from this target. */
  why?: 'crashed run' | 'cut off';
}

const SWEEP_OPTS = { cwd: '/', timeoutMs: 60_000, maxOutputChars: 4096 };

/** Did the call lose its target (so its command may live on there), rather than finish or fail on it? */
function cutOff(err: unknown): boolean {
  return err instanceof SwitchboardError && err.code === 'target_unreachable';
}

/**
 * The provider, with environments that mark what they start. Every method of Environment is listed: one added to
 * the interface without a line here fails to compile (the object must satisfy Environment).
 */
export function markedProvider(
  provider: BackendProvider,
  runs: CoreRuns,
  onSweep: (r: SweepReport) => void,
): BackendProvider {
  const runMark = runs.marker();
  // Local processes were swept at start, in process; a remote host or a container is swept through its target.
  const sweepsRemotely = provider.flags.is_remote || provider.flags.is_container;
  return {
    ...provider,
    createEnvironment(snapshot, ctx) {
      const env = provider.createEnvironment(snapshot, ctx);
      /** Marks of calls cut off from the target; swept after the next call that reaches it. */
      const cut = new Set<string>();
      let sweeping = false;
      const sweep = (marks: string[], why: SweepReport['why']): void => {
        env
          .exec(sweepScript(marks), { ...SWEEP_OPTS, env: runMark })
          .then(
            (r) => {
              for (const m of marks) cut.delete(m);
              onSweep({ identity: env.identity, found: Number(/swept (\d+)/.exec(r.output)?.[1] ?? 0), why });
            },
            (err: unknown) =>
              onSweep({
                identity: env.identity,
                found: 0,
                problem: err instanceof Error ? err.message : String(err),
                why,
              }),
          )
          .finally(() => {
            sweeping = false;
          });
      };
      const reached = (): void => {
        if (!sweepsRemotely || cut.size === 0 || sweeping) return;
        sweeping = true;
        sweep([...cut], 'cut off');
      };
      const callMark = (): { mark: string; env: Record<string, string> } => {
        const id = randomHex(6);
        return { mark: `${CALL_VARIABLE}=${id}`, env: { ...runMark, [CALL_VARIABLE]: id } };
      };
      const marked: Environment = {
        identity: env.identity,
        home: () => env.home(),
        exec: async (command, opts: ExecOptions) => {
          const call = callMark();
          try {
            const result = await env.exec(command, {
              ...opts,
              env: { ...opts.env, ...call.env, [AGENT_VARIABLE]: '1' },
            });
            reached();
            return result;
          } catch (err) {
            if (sweepsRemotely && cutOff(err)) cut.add(call.mark);
            throw err;
          }
        },
        openShell: (opts) => env.openShell({ ...opts, env: { ...opts.env, ...callMark().env } }),
        spawnBackground: async (command, opts) => {
          const call = callMark();
          const handle = await env.spawnBackground(command, {
            ...opts,
            env: { ...opts.env, ...call.env, [AGENT_VARIABLE]: '1' },
          });
          // Lost (exit without a code): the link to it went; it may run on, so it is swept when the target is back.
          handle.onExit((code) => {
            if (code === null && sweepsRemotely) cut.add(call.mark);
          });
          return handle;
        },
        readFile: (path, maxBytes) => env.readFile(path, maxBytes),
        writeFile: (path, data) => env.writeFile(path, data),
        stat: (path) => env.stat(path),
        probe: () => env.probe(),
        cleanup: (reason) => env.cleanup(reason),
      };
      if (sweepsRemotely && runs.stale.length > 0) sweep(runMarks(runs.stale), 'crashed run');
      return marked;
    },
  };
}
