// The composition root: the one object that transports, MCP, the CLI and Electron talk to.
import { mkdirSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import { SwitchboardError } from '../../shared/errors.js';
import {
  coreMethods, type ActivityEntry, type CoreEvent, type CoreMethod, type EventPayload, type MethodInput, type MethodOutput,
} from '../../shared/api.js';
import type { TargetInfo } from '../../shared/targets.js';
import type { ToolClient, ToolResult } from '../../shared/tools.js';
import type { BackendProvider, ProviderContext } from './backends/provider.js';
import { builtinProviders } from './backends/builtins.js';
import { ConfigStore } from './config/configStore.js';
import { emptyRuntimeSource, type RuntimeSource } from './registry/runtimeSource.js';
import { TargetTable } from './registry/targetTable.js';
import { Sessions } from './sessions/sessions.js';
import { Panes } from './sessions/panes.js';
import { AuditLog } from './dispatch/audit.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { terminalTool } from './dispatch/tools/terminal.js';
import { ApprovalBroker } from './approvals/approvalBroker.js';
import { runDoctor } from './doctor.js';

export interface CoreOptions {
  /** SWITCHBOARD_HOME; defaults to the environment variable, then ~/.switchboard. */
  home?: string;
  /** The runtime registry; defaults to none (the registry module supplies the real one). */
  runtime?: (home: string) => RuntimeSource;
  providers?: readonly BackendProvider[];
  /** Extra wiring (tools, guards, services) applied once the Core's parts exist. */
  extensions?: readonly CoreExtension[];
}

/** A part of the Core that plugs itself in: registers tools, guards, methods. */
export type CoreExtension = (core: Core) => void | Promise<void>;

export function switchboardHome(): string {
  return process.env.SWITCHBOARD_HOME || join(homedir(), '.switchboard');
}

type EventListener = (event: CoreEvent, payload: unknown) => void;
type MethodHandler = (input: unknown) => Promise<unknown>;

const ACTIVITY_KEPT = 500;

export class Core {
  readonly home: string;
  readonly config: ConfigStore;
  readonly runtime: RuntimeSource;
  readonly targets: TargetTable;
  readonly sessions: Sessions;
  readonly panes: Panes;
  readonly audit: AuditLog;
  readonly dispatcher: Dispatcher;
  readonly approvals: ApprovalBroker;
  readonly providerContext: ProviderContext;
  private readonly providers = new Map<string, BackendProvider>();
  private readonly listeners = new Set<EventListener>();
  private readonly methods = new Map<string, MethodHandler>();
  private readonly activity: ActivityEntry[] = [];
  private readonly closers: Array<() => void | Promise<void>> = [];
  private targetsTimer: NodeJS.Timeout | undefined;
  private lastProblems = '';

  /** Throws bad_config when config.yaml is wrong, so `serve` and `start` fail loudly. */
  constructor(opts: CoreOptions = {}) {
    this.home = opts.home ?? switchboardHome();
    mkdirSync(this.home, { recursive: true, mode: 0o700 });
    try {
      chmodSync(this.home, 0o700);
    } catch {
      /* not ours to fix */
    }
    for (const p of opts.providers ?? builtinProviders) this.providers.set(p.backend, p);
    this.config = new ConfigStore(this.home, () => new Map([...this.providers].map(([k, p]) => [k, p.specSchema])));
    this.runtime = opts.runtime ? opts.runtime(this.home) : emptyRuntimeSource;
    const provider = (backend: string): BackendProvider | undefined => this.providers.get(backend);
    this.targets = new TargetTable(this.config, this.runtime, provider);
    this.audit = new AuditLog(this.home);
    this.approvals = new ApprovalBroker(
      () => this.config.config.approvals.timeoutSec,
      (a, d) => this.audit.write({
        time: new Date().toISOString(), kind: 'approval', client: d.by === 'person' ? 'person' : d.by, approval_kind: a.kind,
        execution_target: a.execution_target, outcome: d.decision, scope: d.scope, ...(d.reason ? { reason: d.reason } : {}),
        ...(a.host_key ? { fingerprint: a.host_key.fingerprint, host: `${a.host_key.host}:${a.host_key.port}` } : {}),
      }),
    );
    this.approvals.onChange((list) => this.emit('approvals.changed', list));
    this.providerContext = {
      home: this.home,
      confirmHostKey: async (req, signal) => {
        const d = await this.approvals.request({
          kind: 'host_key',
          title: 'Trust host key?',
          execution_target: req.target,
          host_key: { host: req.host, port: req.port, key_type: req.keyType, fingerprint: req.fingerprint },
        }, { signal });
        if (d.decision === 'deny') return 'reject';
        return d.scope === 'always' ? 'trust_always' : 'trust_once';
      },
      resolveSpec: (name) => {
        try {
          return this.targets.snapshot(name).spec;
        } catch {
          return undefined;
        }
      },
      reportReachability: (identity, problem) => this.sessions.reportReachability(identity, problem),
    };
    this.sessions = new Sessions(provider, this.providerContext);
    this.panes = new Panes(this.sessions, {
      data: (pane_id, data) => this.emit('pane.data', { pane_id, data }),
      cwd: (pane_id, cwd) => this.emit('pane.cwd', { pane_id, cwd }),
      exit: (pane_id, exit_code, reason) => this.emit('pane.exit', reason ? { pane_id, exit_code, reason } : { pane_id, exit_code }),
    });
    this.dispatcher = new Dispatcher({
      targets: this.targets,
      sessions: this.sessions,
      audit: this.audit,
      onActivity: (entry) => this.recordActivity(entry),
    });
    this.dispatcher.register('terminal', terminalTool());
    this.dispatcher.register('list_targets', async () => ({ targets: this.listTargets(), default_target: this.targets.defaultTarget }), { targetless: true });
    this.targets.onChange(() => this.scheduleTargetsChanged());
    this.sessions.onChange(() => this.scheduleTargetsChanged());
    this.registerBuiltinMethods();
    this.extensions = opts.extensions ?? [];
  }

  private readonly extensions: readonly CoreExtension[];

  /** Start watching files and apply extensions. */
  async start(): Promise<this> {
    this.config.watch();
    for (const ext of this.extensions) await ext(this);
    return this;
  }

  // ---- events -------------------------------------------------------------

  onEvent(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends CoreEvent>(event: E, payload: EventPayload<E>): void {
    for (const l of this.listeners) l(event, payload);
  }

  private scheduleTargetsChanged(): void {
    // Coalesce bursts (a registry rewrite and a cwd change) into one sidebar update.
    this.targetsTimer ??= setTimeout(() => {
      this.targetsTimer = undefined;
      this.emit('targets.changed', this.listTargets());
      const problems = this.targets.problems();
      const key = problems.join('\n');
      if (key !== this.lastProblems) {
        this.lastProblems = key;
        this.emit('targets.problems', problems);
      }
    }, 30);
  }

  private recordActivity(entry: ActivityEntry): void {
    const i = this.activity.findIndex((e) => e.id === entry.id);
    if (i >= 0) this.activity[i] = entry;
    else {
      this.activity.push(entry);
      if (this.activity.length > ACTIVITY_KEPT) this.activity.shift();
    }
    this.emit('activity', entry);
  }

  // ---- providers, tools, methods -----------------------------------------

  addProvider(provider: BackendProvider): void {
    this.providers.set(provider.backend, provider);
  }

  provider(backend: string): BackendProvider | undefined {
    return this.providers.get(backend);
  }

  providerList(): BackendProvider[] {
    return [...this.providers.values()];
  }

  /** Register the handler of an API-table method (extensions add theirs). */
  handle<M extends CoreMethod>(method: M, handler: (input: MethodInput<M>) => Promise<MethodOutput<M>>): void {
    this.methods.set(method, handler as MethodHandler);
  }

  onClose(closer: () => void | Promise<void>): void {
    this.closers.push(closer);
  }

  /**
   * A connection's panes: what it opened and has not closed. Transports call `release` when the connection
   * goes away (a browser tab closed, a window gone), so its shells do not run on with nobody to see them.
   */
  paneTracker(): { track(method: string, result: unknown, params: unknown): void; release(): void } {
    const mine = new Set<string>();
    return {
      track: (method, result, params) => {
        if (method === 'pane.open' && result && typeof result === 'object' && 'pane_id' in result) mine.add(String(result.pane_id));
        if (method === 'pane.close' && params && typeof params === 'object' && 'pane_id' in params) mine.delete(String(params.pane_id));
      },
      release: () => {
        for (const id of mine) {
          try {
            this.panes.close(id);
          } catch {
            /* already closed */
          }
        }
        mine.clear();
      },
    };
  }

  /** The generic entry every transport uses: validates input and output against the API table. */
  async invoke(method: string, params: unknown, client: ToolClient = 'ui'): Promise<unknown> {
    const spec = (coreMethods as Record<string, { input: z.ZodType; output: z.ZodType }>)[method];
    const handler = this.methods.get(method);
    if (!spec || !handler) throw new SwitchboardError('bad_request', `unknown method "${method}"`);
    const input = spec.input.safeParse(params ?? {});
    if (!input.success) throw new SwitchboardError('bad_request', `${method}: ${input.error.issues[0]?.message ?? 'invalid input'}`);
    if (method === 'tool.call') {
      const i = input.data as { tool: string; args: Record<string, unknown>; client?: ToolClient };
      return this.callTool(i.tool, i.args, i.client ?? client);
    }
    return handler(input.data);
  }

  callTool(tool: string, args: Record<string, unknown>, client: ToolClient): Promise<ToolResult> {
    return this.dispatcher.call(tool, args, { client });
  }

  listTargets(): TargetInfo[] {
    this.targets.refresh();
    return this.targets.list((_name, identity) => ({ cwd: this.sessions.knownCwd(identity), problem: this.sessions.problem(identity) }));
  }

  private registerBuiltinMethods(): void {
    this.handle('targets.list', async () => this.listTargets());
    this.handle('targets.problems', async () => this.targets.problems());
    this.handle('tool.call', async () => {
      throw new SwitchboardError('internal', 'tool.call is routed by invoke');
    });
    this.handle('pane.open', async ({ execution_target, cols, rows }) => {
      this.targets.refresh();
      const snapshot = this.targets.snapshot(execution_target);
      if (snapshot.state === 'draining') {
        throw new SwitchboardError('target_draining', `target "${snapshot.name}" is draining; new panes are refused`, 'pick another target');
      }
      return this.panes.open(snapshot, cols, rows);
    });
    this.handle('pane.write', async ({ pane_id, data }) => (this.panes.write(pane_id, data), {}));
    this.handle('pane.resize', async ({ pane_id, cols, rows }) => (this.panes.resize(pane_id, cols, rows), {}));
    this.handle('pane.ack', async ({ pane_id, chars }) => (this.panes.ack(pane_id, chars), {}));
    this.handle('pane.close', async ({ pane_id }) => (this.panes.close(pane_id), {}));
    this.handle('pane.list', async () => this.panes.list());
    this.handle('activity.list', async ({ limit }) => this.activity.slice(-(limit ?? 200)));
    this.handle('processes.list', async () => []);
    this.handle('doctor.run', async ({ timeout_ms }) => runDoctor(this, timeout_ms));
    this.handle('approvals.list', async () => this.approvals.list());
    this.handle('approvals.decide', async (d) => this.approvals.decide(d));
  }

  async close(): Promise<void> {
    if (this.targetsTimer) clearTimeout(this.targetsTimer);
    for (const c of this.closers.reverse()) await c();
    this.approvals.close();
    this.panes.closeAll();
    await this.sessions.shutdown();
    this.config.close();
    this.runtime.close();
    await this.audit.flush();
  }
}
