// Health of every target, probed in parallel with a deadline each; never prompts (an unknown host key is reported).
import type { DoctorReport } from '../../../shared/api.js';
import { toErrorPayload } from '../../../shared/errors.js';
import type { TargetInfo } from '../../../shared/targets.js';
import type { BackendProvider, ProviderContext } from '../backends/provider.js';
import type { TargetTable } from '../registry/targetTable.js';
import type { Plugins } from '../plugins/plugins.js';
import { pluginHealth } from './pluginHealth.js';

export interface DoctorDeps {
  home: string;
  targets: TargetTable;
  listTargets: () => TargetInfo[];
  providers: () => BackendProvider[];
  providerContext: ProviderContext;
  plugins?: Plugins;
}

export async function runDoctor(deps: DoctorDeps, timeoutMs = 5000): Promise<DoctorReport> {
  deps.targets.refresh();
  const infos = deps.listTargets();
  const byBackend = new Map(deps.providers().map((p) => [p.backend, p]));
  const targets = await Promise.all(infos.map(async (t) => {
    const started = Date.now();
    const base = { name: t.name, generation: t.generation, backend: t.backend, source: t.source, state: t.state };
    try {
      const snapshot = deps.targets.snapshot(t.name);
      const provider = byBackend.get(snapshot.spec.backend);
      if (!provider) return { ...base, ok: false, problem: `backend "${t.backend}" is not available`, ms: 0 };
      // A separate environment whose context cannot prompt: doctor reports, it never asks.
      const env = provider.createEnvironment(snapshot, { ...deps.providerContext, confirmHostKey: undefined });
      try {
        const probe = await Promise.race([
          env.probe(),
          new Promise<{ ok: false; problem: string }>((resolve) => setTimeout(() => resolve({ ok: false, problem: `no answer within ${timeoutMs / 1000}s` }), timeoutMs)),
        ]);
        const ms = Date.now() - started;
        return probe.ok ? { ...base, ok: true, ...(probe.detail ? { detail: probe.detail } : {}), ms } : { ...base, ok: false, problem: probe.problem, ms };
      } finally {
        void env.cleanup('idle').catch(() => undefined);
      }
    } catch (err) {
      return { ...base, ok: false, problem: toErrorPayload(err).message, ms: Date.now() - started };
    }
  }));
  const backends = deps.providers().map((p) => ({ backend: p.backend, flags: { ...p.flags } }));
  const plugins = deps.plugins ? await pluginHealth(deps.plugins, deps.targets, infos, timeoutMs) : [];
  return { home: deps.home, backends, targets, problems: deps.targets.problems(), plugins };
}
