// Doctor's view of each plugin: state and version, whether its backends are available, requirement problems, its own
// checks.
import type { DoctorReport } from '../../../shared/api.js';
import type { TargetInfo } from '../../../shared/targets.js';
import type { TargetTable } from '../targets/index.js';
import type { Plugins } from '../plugins/index.js';

type PluginHealth = NonNullable<DoctorReport['plugins']>[number];

/**
 * Each call into a plugin has its own deadline (the host enforces it); a failed call is a failed check, never a crash.
 */
export async function pluginHealth(
  plugins: Plugins,
  targets: TargetTable,
  infos: TargetInfo[],
  probeMs: number,
): Promise<PluginHealth[]> {
  // A missed deadline fails the check: give a plugin's own checks time, whatever the per-target probe deadline.
  const timeoutMs = Math.max(probeMs, 10_000);
  return Promise.all(
    plugins.list().map(async (info): Promise<PluginHealth> => {
      const host = plugins.hostOf(info.name);
      if (!host) return { ...info, requirements: [], checks: [] };
      const checks: PluginHealth['checks'] = [];
      const requirements: string[] = [];
      let available = true;
      for (const backend of info.backends) {
        try {
          if (!(await host.call('is_available', { backend }, timeoutMs))) {
            available = false;
            checks.push({ name: `${backend}: available`, ok: false, detail: 'is_available() said no' });
          }
          for (const c of await host.call('doctor_checks', { backend }, timeoutMs))
            checks.push({ ...c, name: `${backend}: ${c.name}` });
          for (const t of infos.filter((i) => i.backend === backend)) {
            let spec: Record<string, unknown>;
            try {
              spec = { ...targets.snapshot(t.name).spec };
            } catch (err) {
              // A spec that does not fit the backend's fields is a requirement problem of that target.
              requirements.push(`target ${t.name}: ${err instanceof Error ? err.message : String(err)}`);
              continue;
            }
            for (const problem of await host.call('check_requirements', { backend, spec }, timeoutMs))
              requirements.push(`target ${t.name}: ${problem}`);
          }
        } catch (err) {
          checks.push({ name: backend, ok: false, detail: err instanceof Error ? err.message : String(err) });
        }
      }
      return { ...info, available, requirements, checks };
    }),
  );
}
