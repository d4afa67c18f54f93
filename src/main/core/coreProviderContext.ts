// The ProviderContext the Core hands every backend: the profile, this run's id, and the few Core services a backend
// may call (a host-key prompt, another target's spec, reachability, where work runs, the variables passed through,
// the log), each built from a narrow dependency rather than from the Core.
import type { SandboxInfo, TargetSpec } from '../../shared/targets.js';
import type { ApprovalBroker } from './approvals/index.js';
import type { Log } from './platform/index.js';
import type { ProviderContext } from './backends/index.js';

export interface CoreProviderContextDeps {
  home: string;
  coreRun: string;
  approvals: Pick<ApprovalBroker, 'request'>;
  /** A target's current spec by name; throws when there is no such target (or its backend is missing). */
  spec(name: string): TargetSpec;
  reportReachability(identity: string, problem: string | undefined, lasting?: boolean): void;
  reportSandbox(identity: string, info: SandboxInfo): void;
  envPassthrough(): readonly string[];
  strippedEverywhere(): readonly string[];
  log: Log;
}

export function coreProviderContext(deps: CoreProviderContextDeps): ProviderContext {
  return {
    home: deps.home,
    coreRun: deps.coreRun,
    // An unknown host key is a person's decision, asked like a command's; a connection that goes away withdraws it.
    confirmHostKey: async (req, signal) => {
      const d = await deps.approvals.request(
        {
          kind: 'host_key',
          title: 'Trust host key?',
          execution_target: req.target,
          host_key: { host: req.host, port: req.port, key_type: req.keyType, fingerprint: req.fingerprint },
        },
        { signal },
      );
      if (d.decision === 'deny') return 'reject';
      return d.scope === 'always' ? 'trust_always' : 'trust_once';
    },
    resolveSpec: (name) => {
      try {
        return deps.spec(name);
      } catch {
        // Gone, or its backend missing: no spec to resolve.
        return undefined;
      }
    },
    reportReachability: deps.reportReachability,
    reportSandbox: deps.reportSandbox,
    envPassthrough: deps.envPassthrough,
    strippedEverywhere: deps.strippedEverywhere,
    log: deps.log,
  };
}
