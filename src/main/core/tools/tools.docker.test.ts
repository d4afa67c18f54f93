// The shared tool suite on Docker targets of each container engine's test service (scripts/env/docker.sh, and
// Podman's Docker-compatible API from scripts/env/podman.sh): busybox (sh only), and the python image for
// execute_code when it was built. Skipped while the docker backend or its fixture is missing.
import { loadEngineEnvs, type EngineTestEnv } from '../../../../scripts/testEnv.js';
import { builtinProviders } from '../backends/providers.js';
import { makeTestCore } from './testCore.js';
import { describeToolsOn } from './toolsSuite.js';

const docker = builtinProviders.find((p) => p.backend === 'docker');

function suite(env: EngineTestEnv, label: string, image: string | null): void {
  describeToolsOn(label, async () => {
    const img = image;
    if (!docker || !img) return undefined;
    const base = `backend: docker, docker_image: "${img}", docker_host: "unix://${env.socket}", docker_network: none`;
    // Two containers; different cwds too, so a shared filesystem would still be caught.
    const t = await makeTestCore(['da', 'db'], {
      specs: { da: `{ ${base}, cwd: /tmp }`, db: `{ ${base}, cwd: / }` },
      providers: builtinProviders,
    });
    const probe = await t.core.callTool(
      'terminal',
      { command: 'command -v python3 >/dev/null && echo yes || echo no', execution_target: 'da' },
      'test',
    );
    return {
      call: (tool, args) => t.core.callTool(tool, args, 'test'),
      targets: ['da', 'db'],
      python: probe.output === 'yes\n',
      close: () => t.close(),
    };
  });
}

for (const env of loadEngineEnvs()) {
  suite(env, `${env.engine} (busybox)`, env.image);
  suite(env, `${env.engine} (python)`, env.pythonImage);
}
