// Where agent work on an SSH target runs: what the host offers the sandbox, asked in one round trip per connection
// and kept a moment, told the Core when it changes (TargetInfo.sandbox), and the warm shells renewed when it moves.
import type { SandboxInfo } from '../../../../shared/targets.js';
import type { SandboxSetting } from '../../../../shared/specFields.js';
import {
  parseFacts,
  type RemoteFacts,
  type RemoteSandbox,
  remoteSandboxInfo,
  mountSignature,
} from '../../sandbox/index.js';
import type { LiveConnection } from './liveConnection.js';

/** How long what the host offers the sandbox is taken as known on one connection. */
const SANDBOX_FACTS_MS = 2000;

export interface SshSandboxFactsDeps {
  identity: string;
  setting: SandboxSetting | undefined;
  /** The sandbox on the host (undefined: `sandbox: off`). */
  sandbox: RemoteSandbox | undefined;
  /** Tells the Core where this target's agent work runs. */
  report?: (identity: string, info: SandboxInfo) => void;
  /** Retires the identity's warm shells: the next call gets ones started as it should run. */
  renewWarm: () => void;
}

export class SshSandboxFacts {
  private sandboxFacts: { live: LiveConnection; at: number; facts: Promise<RemoteFacts> } | undefined;
  /** The sandbox's mounts the warm shells were started with: a change retires them. */
  private warmMounts: string | undefined;
  private runsInSandbox = false;
  /** What was last told the Core of where work runs (JSON), so that it hears a change once. */
  private reported: string | undefined;

  constructor(private readonly deps: SshSandboxFactsDeps) {}

  /** Whether runs on this connection start in the sandbox (as of the last facts). */
  get inSandbox(): boolean {
    return this.runsInSandbox;
  }

  /** Tells the Core where this target's agent work runs (TargetInfo.sandbox), when that changed. */
  private report(info: SandboxInfo | undefined): void {
    if (!info) return;
    const said = JSON.stringify(info);
    if (said === this.reported) return;
    this.reported = said;
    this.deps.report?.(this.deps.identity, info);
  }

  /**
   * What the host offers the sandbox, asked in one round trip and kept for SANDBOX_FACTS_MS on one connection (a new
   * connection asks again: a host that lost bubblewrap is noticed at the next connect). Undefined: this target runs
   * unsandboxed (`sandbox: off`, or the host cannot run one: TargetInfo and the probe say why).
   */
  async facts(live: LiveConnection): Promise<RemoteFacts | undefined> {
    const { sandbox } = this.deps;
    if (!sandbox) {
      this.report(remoteSandboxInfo('off', undefined, live.label));
      return undefined;
    }
    const now = Date.now();
    const kept = this.sandboxFacts;
    if (!kept || kept.live !== live || now - kept.at > SANDBOX_FACTS_MS) {
      const facts = live.run(sandbox.probe(), { timeoutMs: 30_000 }).then((r) => parseFacts(r.output));
      this.sandboxFacts = { live, at: now, facts };
      facts.catch(() => {
        if (this.sandboxFacts?.facts === facts) this.sandboxFacts = undefined;
      });
    }
    const facts = await this.sandboxFacts!.facts;
    const usable = facts.bwrap.ok && !!facts.home && !!facts.arch;
    this.report(remoteSandboxInfo(this.deps.setting, facts, live.label));
    if (usable !== this.runsInSandbox) {
      // Shells started in the sandbox, or without it, are not what the next call should get.
      this.deps.renewWarm();
      this.runsInSandbox = usable;
    }
    if (!usable) return undefined;
    // Shells started with other mounts (a credential file or a repository since) go; the next call gets new ones.
    const mounts = mountSignature(sandbox.policy(facts));
    if (mounts !== this.warmMounts) {
      if (this.warmMounts !== undefined) this.deps.renewWarm();
      this.warmMounts = mounts;
    }
    return facts;
  }
}
