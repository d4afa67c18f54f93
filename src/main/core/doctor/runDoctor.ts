// Health of every target, probed in parallel with a deadline each (probeTarget); never prompts (an unknown host key is
// reported); warns of a target whose work runs unsandboxed though it could be held in.
import type { DoctorReport } from '../../../shared/api.js';
import { toErrorPayload } from '../../../shared/errors.js';
import type { SandboxInfo, TargetInfo } from '../../../shared/targets.js';
import type { BackendProvider, ProviderContext } from '../backends/index.js';
import { healthProbe, probeTarget, type ProbeOutcome, type TargetTable } from '../targets/index.js';
import type { Plugins } from '../plugins/index.js';
import { pluginHealth } from './pluginHealth.js';
import { resolvesHere } from './thisMachine.js';

export interface DoctorDeps {
  home: string;
  targets: TargetTable;
  listTargets: () => TargetInfo[];
  providers: () => BackendProvider[];
  providerContext: ProviderContext;
  plugins?: Plugins;
  /** The audit log's own trouble (lines lost on a full disk), when it has some. */
  auditProblem?: () => string | undefined;
  /** Each target's probe as it answered (the Core's health checks take them as their latest). */
  probed?: (identity: string, outcome: ProbeOutcome) => void;
}

export async function runDoctor(deps: DoctorDeps, timeoutMs = 5000): Promise<DoctorReport> {
  deps.targets.refresh();
  const infos = deps.listTargets();
  const byBackend = new Map(deps.providers().map((p) => [p.backend, p]));
  const targets = await Promise.all(
    infos.map(async (t) => {
      const base = {
        name: t.name,
        generation: t.generation,
        backend: t.backend,
        source: t.source,
        state: t.state,
        ...(t.sandbox ? { sandbox: t.sandbox } : {}),
      };
      try {
        const snapshot = deps.targets.snapshot(t.name);
        const provider = byBackend.get(snapshot.spec.backend);
        // A plugin's environment may be a sandbox a vendor starts and bills: doctor looks with the plugin's own probe,
        // as the health checks do, and says so when it has none. The built-ins' full probe creates nothing remote.
        const opts = { timeoutMs, checkCwd: true };
        const r = provider?.plugin
          ? await healthProbe(snapshot, provider, deps.providerContext, opts)
          : await probeTarget(snapshot, provider, deps.providerContext, opts);
        if (!r)
          return {
            ...base,
            ok: true,
            detail: 'not checked yet: its backend has no probe (one would create an environment); calls say how it is',
            ms: 0,
          };
        deps.probed?.(snapshot.identity, r);
        const problem = r.problem ?? r.cwdProblem;
        return {
          ...base,
          ok: r.ok,
          ...(r.detail ? { detail: r.detail } : {}),
          ...(problem ? { problem } : {}),
          ms: r.ms,
        };
      } catch (err) {
        return { ...base, ok: false, problem: toErrorPayload(err).message, ms: 0 };
      }
    }),
  );
  // The probes looked: what they found of where work runs (an attached container's own settings) is known now.
  const seen = new Map(deps.listTargets().map((t) => [t.name, t.sandbox]));
  const rows = targets.map((t) => {
    const sandbox = seen.get(t.name) ?? t.sandbox;
    return sandbox ? { ...t, sandbox } : t;
  });
  const backends = deps.providers().map((p) => ({ backend: p.backend, flags: { ...p.flags } }));
  const plugins = deps.plugins ? await pluginHealth(deps.plugins, deps.targets, infos, timeoutMs) : [];
  const here = await Promise.all(
    infos.map(async (t) => {
      const host = byBackend.get(t.backend)?.remoteHost?.({ ...t.spec, backend: t.backend });
      const address = host ? await resolvesHere(host) : undefined;
      return address
        ? [
            `target "${t.name}": its host ${host} is this machine (${address}): ` +
              `its commands run here as that account, outside any local sandbox`,
          ]
        : [];
    }),
  );
  const audit = deps.auditProblem?.();
  return {
    home: deps.home,
    backends,
    targets: rows,
    problems: [...deps.targets.problems(), ...here.flat(), ...(audit ? [audit] : [])],
    warnings: rows.flatMap((t) => (t.sandbox ? unsandboxedWarning(t.name, t.sandbox) : [])),
    plugins,
  };
}

/** A target whose work runs unsandboxed though a change would hold it in (the info says what): one line. */
export function unsandboxedWarning(name: string, s: SandboxInfo): string[] {
  if (s.state !== 'unsandboxed' || !s.hint) return [];
  return [`target "${name}" runs agent work unsandboxed: ${s.reason ?? 'no reason given'} — ${s.hint}`];
}
