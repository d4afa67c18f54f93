// `switchboard doctor`: backends, registry/config problems, and each target's reachability, probed in parallel.
import type { Command } from 'commander';
import type { DoctorReport } from '../../../shared/api.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { Core, switchboardHome } from '../../core/core.js';
import { defaultCoreOptions } from '../../core/defaults.js';
import { runDoctor } from '../../core/doctor.js';
import { readCoreFile } from '../../transport/coreFile.js';
import { withCore } from '../connect.js';
import { action, printJson, table } from '../output.js';

async function report(timeoutMs: number): Promise<{ report: DoctorReport; core: string }> {
  try {
    readCoreFile(switchboardHome());
    return { report: await withCore((c) => c.call('doctor.run', { timeout_ms: timeoutMs })), core: 'running' };
  } catch (err) {
    if (!(err instanceof SwitchboardError) || err.code !== 'no_core') throw err;
  }
  const core = await new Core(defaultCoreOptions()).start();
  try {
    return { report: await runDoctor(core, timeoutMs), core: 'not running' };
  } finally {
    await core.close();
  }
}

export function doctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check backends, config, the runtime registry and every target')
    .option('--timeout <seconds>', 'deadline per target', '5')
    .option('--json', 'one JSON document')
    .action(action(async (opts: { timeout: string; json?: boolean }) => {
      const secs = Number(opts.timeout);
      if (!(secs > 0 && secs <= 60)) throw new SwitchboardError('bad_request', '--timeout must be 1-60 seconds');
      const { report: r, core } = await report(secs * 1000);
      if (opts.json) return printJson({ core, ...r });
      process.stdout.write(`profile  ${r.home}\ncore     ${core}\nbackends ${r.backends.map((b) => b.backend).join(', ')}\n\n`);
      process.stdout.write(table(['TARGET', 'BACKEND', 'SOURCE', 'STATE', 'HEALTH', 'TIME', 'DETAIL'], r.targets.map((t) => [
        t.name, t.backend, t.source, t.state, t.ok ? 'ok' : 'FAIL', `${t.ms}ms`, (t.ok ? t.detail : t.problem) ?? '',
      ])));
      for (const p of r.problems) process.stdout.write(`problem: ${p}\n`);
      if (r.targets.some((t) => !t.ok) || r.problems.length > 0) process.exitCode = 1;
    }));
}
