// Health of every target, probed in parallel with a deadline each; never prompts (an unknown host key is reported).
import type { DoctorReport } from '../../shared/api.js';
import { toErrorPayload } from '../../shared/errors.js';
import type { Core } from './core.js';

export async function runDoctor(core: Core, timeoutMs = 5000): Promise<DoctorReport> {
  core.targets.refresh();
  const infos = core.listTargets();
  const targets = await Promise.all(infos.map(async (t) => {
    const started = Date.now();
    const base = { name: t.name, generation: t.generation, backend: t.backend, source: t.source, state: t.state };
    try {
      const snapshot = core.targets.snapshot(t.name);
      const provider = core.provider(snapshot.spec.backend);
      if (!provider) return { ...base, ok: false, problem: `backend "${t.backend}" is not available`, ms: 0 };
      // A separate environment whose context cannot prompt: doctor reports, it never asks.
      const env = provider.createEnvironment(snapshot, { ...core.providerContext, confirmHostKey: undefined });
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
  const backends = core.providerList().map((p) => ({ backend: p.backend, flags: { ...p.flags } }));
  return { home: core.home, backends, targets, problems: core.targets.problems() };
}
