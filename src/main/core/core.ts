// The composition root: builds the nouns from explicit dependencies and composes their handler tables. Nothing imports
// it but the edges.
// Over 380 lines: composition only, every noun built and wired in one place so its order reads top to bottom.
import { dropLauncherEnv } from './launcherEnv.js';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { SwitchboardError, toErrorPayload } from '../../shared/errors.js';
import {
  coreMethods,
  isCoreMethod,
  methodCapability,
  type CoreEvent,
  type EventPayload,
  type ProgressNote,
} from '../../shared/api.js';
import { type TargetInfo, dormantSpec } from '../../shared/targets.js';
import type { ToolClient, ToolResult } from '../../shared/tools.js';
import {
  type BackendProvider,
  type ProviderContext,
  type TargetSnapshot,
  backendInfo,
  backendMethods,
} from './backends/index.js';
import { builtinProviders, sshHostMethods } from './backends/providers.js';
import { coreProviderContext } from './coreProviderContext.js';
import { pluginMethods, Plugins } from './plugins/index.js';
import { ConfigStore } from './config/index.js';
import {
  emptyRuntimeSource,
  type RuntimeSource,
  Registry,
  endSessionTargets,
  specFingerprint,
} from './registry/index.js';
import {
  TargetTable,
  listTargets,
  TargetHealth,
  watchedTargets,
  type HealthTiming,
  TargetsChanged,
  healthProbe,
  targetMethods,
  runsOnThisMachine,
  targetSandbox,
} from './targets/index.js';
import { retireIdentities } from './retireIdentities.js';
import { Sessions, IdentityHolds } from './sessions/index.js';
import { Panes, paneMethods } from './panes/index.js';
import {
  ProcessManager,
  processMethods,
  CoreRuns,
  sweepLocal,
  markedProvider,
  type SweepReport,
  sweepAuditRecord,
} from './processes/index.js';
import {
  AuditLog,
  ACTIVITY_KEPT,
  ActivityLog,
  recentActivity,
  actionRecorder,
  activityMethods,
} from './activity/index.js';
import { Dispatcher } from './dispatch/index.js';
import { toolDefs, toolMethods } from './tools/index.js';
import {
  ApprovalBroker,
  ApprovalRules,
  CommandApprovals,
  execProbe,
  hostPathsProbe,
  approvalMethods,
  approvalAuditRecord,
} from './approvals/index.js';
import { EventBus, type EventListener, eventMethods } from './events/index.js';
import {
  detachedConnection,
  composeHandlers,
  type CallContext,
  type Handlers,
  prepareHome,
  switchboardHome,
  endsSettled,
  afterWork,
  fileLog,
  type Log,
} from './platform/index.js';
import { workspaceMethods, type KeyValueStoreFactory } from './workspace/index.js';
import { doctorMethods } from './doctor/index.js';
import { PersonLinks, personMethods } from './person/index.js';
import { OutputStore } from './outputs/index.js';

/** The refusal of a person's method to a caller that is not one: what it was, why, and where a person does it. */
function personOnly(method: string, why: string): SwitchboardError {
  return new SwitchboardError(
    'not_permitted',
    `only a person may use ${method}: ${why}`,
    'do it in the Switchboard window, or run the `switchboard` command in a terminal of your own (not from a ' +
      'tool call)',
  );
}

/**
 * Kept for callers that found the profile here; it lives in home.ts so that nothing below the Core imports this file.
 */
export { switchboardHome };

export interface CoreOptions {
  /** SWITCHBOARD_HOME; defaults to the environment variable, then ~/.switchboard. */
  home?: string;
  /** The runtime registry; defaults to none (the registry module supplies the real one). */
  runtime?: (home: string) => RuntimeSource;
  providers?: readonly BackendProvider[];
  /** Where the window's layout is kept (electron-store in Electron); conf under the profile by default. */
  uiStore?: KeyValueStoreFactory;
  /** How often targets are probed (tests shorten it); probing starts with start(). */
  healthTiming?: Partial<HealthTiming>;
  /** Where failures nobody waits on are written; the profile's switchboard.log by default. */
  log?: Log;
}

const logLine = (line: string): void => void process.stderr.write(`switchboard: ${line}\n`);

export class Core {
  readonly home: string;
  readonly log: Log;
  readonly config: ConfigStore;
  readonly runtime: RuntimeSource;
  readonly targets: TargetTable;
  readonly sessions: Sessions;
  readonly holds = new IdentityHolds();
  readonly panes: Panes;
  readonly processes: ProcessManager;
  /** Whole outputs of cut results (read_output), in the profile's state dir while this Core runs. */
  readonly outputs: OutputStore;
  readonly audit: AuditLog;
  readonly dispatcher: Dispatcher;
  readonly approvals: ApprovalBroker;
  readonly approvalRules: ApprovalRules;
  private readonly commandApprovals: CommandApprovals;
  readonly activity: ActivityLog;
  readonly providerContext: ProviderContext;
  private readonly events = new EventBus();
  /** This run of the Core: the owner of the session targets it registers (registry/sessionTargets.ts). */
  private readonly runId = randomUUID();
  /** The built-in backends by name; plugin backends come from `plugins`. */
  private readonly builtins = new Map<string, BackendProvider>();
  readonly plugins: Plugins;
  /** The secrets of the links that make a browser page a person's (the transport asks them). */
  readonly personLinks: PersonLinks;
  private readonly runs: CoreRuns;
  /** The start-time sweeps of providers (afterCrashedRuns), awaited before the audit closes. */
  private readonly startSweeps: Promise<void>[] = [];
  private readonly handlers: Handlers;
  private readonly retire: { schedule(): void; close(): void };
  private readonly health: TargetHealth;
  private started = false;
  private readonly targetsChanged = new TargetsChanged({
    list: () => this.listTargets(),
    problems: () => this.targets.problems(),
    changed: (list) => this.emit('targets.changed', list),
    problemsChanged: (problems) => this.emit('targets.problems', problems),
  });

  /** Throws bad_config when config.yaml is wrong, so `serve` and `start` fail loudly. */
  constructor(opts: CoreOptions = {}) {
    // Before anything is started: what the launcher set for this process alone leaves the environment children get.
    dropLauncherEnv();
    this.home = opts.home ?? switchboardHome();
    prepareHome(this.home);
    this.log = opts.log ?? fileLog({ file: join(this.home, 'switchboard.log') });
    this.personLinks = new PersonLinks(join(this.home, 'state', 'person-links.json'));
    for (const p of opts.providers ?? builtinProviders) this.builtins.set(p.backend, p);
    this.plugins = new Plugins({
      home: this.home,
      log: this.log.for('plugins'),
      reserved: () => [...this.builtins.keys()],
      // A plugin came, went, crashed or came back: its backends, the config's view of its targets, and their state.
      onChange: () => {
        this.config.revalidate();
        this.emit('backends.changed', this.allProviders().map(backendInfo));
        this.targetsChanged.schedule();
      },
    });
    const provider = (backend: string): BackendProvider | undefined =>
      this.builtins.get(backend) ?? this.plugins.provider(backend);
    // A config target of a plugin that is not loaded (yet) is accepted as written and shown unreachable, never an
    // error.
    this.config = new ConfigStore(
      this.home,
      () =>
        new Map([
          ...this.plugins.dormantBackends().map((b) => [b, dormantSpec] as const),
          ...this.allProviders().map((p) => [p.backend, p.specSchema] as const),
        ]),
    );
    this.runtime = opts.runtime ? opts.runtime(this.home) : emptyRuntimeSource;
    this.targets = new TargetTable(this.config, this.runtime, provider, (backend) => this.plugins.missing(backend));
    this.audit = new AuditLog(this.home);
    this.approvals = new ApprovalBroker(
      () => this.config.config.approvals.timeoutSec,
      // Command decisions are written by the approval step, which also sees the ones no person made.
      (a, d) => a.kind === 'host_key' && this.audit.write(approvalAuditRecord(a, d)),
    );
    this.approvals.onChange((list) => this.emit('approvals.changed', list));
    this.approvalRules = new ApprovalRules(this.home, (name) => {
      try {
        return specFingerprint(this.targets.snapshot(name).spec);
      } catch {
        // Gone, or its backend is missing: no rule can match it now.
        return undefined;
      }
    });
    this.approvalRules.onChange((rules) => this.emit('approvals.rules', rules));
    // Everything this run starts is marked; what crashed runs left is ended: here at once, elsewhere on first reach.
    this.runs = new CoreRuns(this.home);
    this.providerContext = coreProviderContext({
      home: this.home,
      coreRun: this.runs.id,
      approvals: this.approvals,
      spec: (name) => this.targets.snapshot(name).spec,
      reportReachability: (identity, problem, lasting) => this.sessions.reportReachability(identity, problem, lasting),
      reportSandbox: (identity, info) => this.sessions.reportSandbox(identity, info),
      envPassthrough: () => this.config.config.approvals.envPassthrough,
      strippedEverywhere: () => this.plugins.strippedEverywhere(),
      log: this.log,
    });
    // One audit line per place swept (only after a crash: a clean run leaves nothing to sweep).
    const swept = (r: SweepReport): void => {
      const record = sweepAuditRecord(r);
      if (record) this.audit.write(record);
    };
    if (this.runs.stale.length > 0) swept({ identity: 'this machine', found: sweepLocal(this.runs.stale).length });
    // What crashed runs left beyond any one target's processes (Docker: containers they made running), at once.
    for (const p of this.builtins.values()) {
      const done = p.afterCrashedRuns?.(this.home, this.runs.stale).then(
        (reports) => {
          for (const r of reports)
            swept({
              identity: r.where,
              found: r.found,
              ...(r.problem ? { problem: r.problem } : {}),
              why: 'crashed run',
            });
        },
        (err: unknown) =>
          swept({
            identity: p.backend,
            found: 0,
            problem: err instanceof Error ? err.message : String(err),
            why: 'crashed run',
          }),
      );
      if (done) this.startSweeps.push(done);
    }
    this.sessions = new Sessions((backend) => {
      const p = provider(backend);
      return p && markedProvider(p, this.runs, swept);
    }, this.providerContext);
    this.panes = new Panes(
      this.sessions,
      {
        data: (pane_id, data, chars) => this.emit('pane.data', { pane_id, data, chars }),
        cwd: (pane_id, cwd) => this.emit('pane.cwd', { pane_id, cwd }),
        exit: (pane_id, exit_code, reason, detail) =>
          this.emit('pane.exit', {
            pane_id,
            exit_code,
            ...(reason ? { reason } : {}),
            ...(detail ? { detail } : {}),
          }),
        reconnect: (pane_id, state) => this.emit('pane.reconnect', { pane_id, ...state }),
      },
      this.holds,
      (snapshot) => {
        this.targets.refresh();
        return (
          this.targets.names().includes(snapshot.name) &&
          this.targets.snapshot(snapshot.name).identity === snapshot.identity
        );
      },
    );
    this.processes = new ProcessManager({
      holds: this.holds,
      log: this.log.for('processes'),
      onChanged: (list) => {
        this.emit('processes.changed', list);
        this.retire.schedule();
      },
      onOutput: (session_id, data) => this.emit('process.output', { session_id, data }),
    });
    // The feed goes on from the calls the audit log holds: a Core started again shows what happened before it.
    this.activity = new ActivityLog(
      (entry) => this.emit('activity', entry),
      recentActivity(this.audit.path, ACTIVITY_KEPT),
    );
    this.health = new TargetHealth({
      watched: () => (this.started ? watchedTargets(this.targets) : []),
      probe: async (name) => {
        let snapshot: TargetSnapshot;
        try {
          snapshot = this.targets.snapshot(name);
        } catch (err) {
          return { ok: false, problem: toErrorPayload(err).message, ms: 0 };
        }
        return healthProbe(snapshot, provider(snapshot.spec.backend), this.providerContext, {
          timeoutMs: 8000,
          checkCwd: true,
        });
      },
      reachableAgain: (identity) => this.sessions.lookedReachable(identity),
      onChange: (news) => this.targetsChanged.schedule(news),
      ...(opts.healthTiming ? { timing: opts.healthTiming } : {}),
    });
    const targetList = (): TargetInfo[] => this.listTargets();
    const declarationOf = (s: TargetSnapshot): BackendProvider | undefined =>
      this.allProviders().find((p) => p.backend === s.spec.backend);
    const hostPaths = (s: TargetSnapshot): boolean => runsOnThisMachine(s.flags, declarationOf(s), s.spec);
    this.commandApprovals = new CommandApprovals({
      // Loaded on first use (with tree-sitter), see invoke; the Python and JavaScript grammars when a call needs them.
      // Told the profile, so that no agent call changes it or reads the token in it.
      policy: async () =>
        (await import('./approvals/policy/commandPolicy.js')).loadCommandPolicy({
          profile: resolve(this.home),
          codeGrammars: 'when needed',
        }),
      broker: this.approvals,
      rules: this.approvalRules,
      sessions: this.sessions,
      audit: this.audit,
      settings: () => this.config.config.approvals,
      sandbox: (s) => targetSandbox(this.sessions.sandbox(s.identity), declarationOf(s), s.spec),
      hostPaths,
      // Looks on the target itself for links, run files and git: through its exec (inside the sandbox, for a sandboxed
      // local target). Where work runs on this machine, paths are resolved here, without a process: the sandbox binds
      // what it lets a command write at the same paths, so a link there is seen here too (what it masks or keeps
      // private may only read as more, never less, than it is).
      probe: (s) => {
        const exec = execProbe(() => this.sessions.environment(s));
        return hostPaths(s) ? hostPathsProbe(exec) : exec;
      },
      processInfo: (id) => {
        try {
          const p = this.processes.info(id);
          return { command: p.command, cwd: p.cwd };
        } catch {
          return undefined; // unknown: the process tool says so
        }
      },
      current: (name) => {
        this.targets.refresh();
        try {
          return this.targets.snapshot(name);
        } catch {
          // gone, or its backend missing: nothing current to judge by
          return undefined;
        }
      },
    });
    this.outputs = new OutputStore(join(this.home, 'state', 'outputs'));
    this.dispatcher = new Dispatcher({
      approvals: this.commandApprovals,
      targets: this.targets,
      sessions: this.sessions,
      audit: this.audit,
      holds: this.holds,
      onActivity: (entry) => this.activity.record(entry),
      // Once the calls stop for a while, the memory their burst grew is given back.
      finished: afterWork,
      // A call that got through (or could not connect) is the newest word on its target's health.
      reachability: (identity, problem) => {
        this.sessions.reportReachability(identity, problem);
        if (problem) this.health.failed(identity, problem);
        else this.health.reached(identity);
      },
      tools: toolDefs,
      services: {
        processes: this.processes,
        outputs: this.outputs,
        listTargets: () => ({ targets: targetList(), default_target: this.targets.defaultTarget }),
      },
    });
    this.retire = retireIdentities({
      targets: this.targets,
      sessions: this.sessions,
      panes: this.panes,
      holds: this.holds,
      processes: this.processes,
    });
    this.targets.onChange(() => {
      this.health.sync();
      this.approvalRules.targetsChanged();
      this.targetsChanged.schedule();
    });
    this.sessions.onChange((identity, what) => {
      // A backend's word on its link (a connection made or lost) shows in the health at once, both ways; where its
      // work runs (a sandbox report) says nothing of that.
      if (what === 'sandbox') return this.targetsChanged.schedule();
      const problem = this.sessions.problem(identity);
      if (problem) this.health.failed(identity, problem);
      else this.health.reached(identity);
      this.targetsChanged.schedule();
    });

    const record = actionRecorder({ activity: this.activity, audit: this.audit });
    // Each noun serves its own slice of the API; a method served twice or by nobody fails to compile here.
    this.handlers = composeHandlers(
      targetMethods({
        targets: this.targets,
        listTargets: targetList,
        registry: this.runtime instanceof Registry ? this.runtime : undefined,
        configNames: () => [...this.config.config.targets.keys()],
        record,
        sessionOwner: this.runId,
        describe: (spec) => {
          const backend = typeof spec.backend === 'string' ? spec.backend : '?';
          const said = provider(backend)?.describe(spec);
          return said ? `${backend} ${said}` : backend;
        },
      }),
      paneMethods({
        targets: this.targets,
        panes: this.panes,
        keepSec: () => this.config.config.paneKeepSec,
        audit: this.audit,
      }),
      processMethods({ processes: this.processes, record }),
      approvalMethods({ approvals: this.approvals, rules: this.approvalRules, record }),
      workspaceMethods({ home: this.home, store: opts.uiStore }),
      doctorMethods({
        home: this.home,
        targets: this.targets,
        listTargets: targetList,
        providers: () => this.allProviders(),
        providerContext: this.providerContext,
        plugins: this.plugins,
        auditProblem: () => this.audit.problem(),
        // A doctor run probes every target: its answers are the health checks' latest too, so the window follows it.
        probed: (identity, outcome) => this.health.record(identity, outcome),
      }),
      toolMethods({ dispatcher: this.dispatcher }),
      activityMethods({ activity: this.activity }),
      eventMethods(),
      backendMethods({ providers: () => this.allProviders() }),
      sshHostMethods(),
      pluginMethods({ plugins: this.plugins, record }),
      personMethods({ links: this.personLinks }),
    ) satisfies Handlers;
  }

  /** Start watching files. */
  async start(): Promise<this> {
    this.config.watch();
    this.outputs.clearLeftovers();
    // Session targets of a run that could not remove them (it crashed or was killed) live no longer than it.
    if (this.runtime instanceof Registry) await endSessionTargets(this.runtime, this.runId, logLine);
    await this.plugins.start();
    this.started = true;
    this.health.sync();
    // Starting (config, plugins, the first probes) is a burst of work too.
    afterWork();
    return this;
  }

  /** Every backend that can be used now: the built-ins, then the active plugins' backends. */
  private allProviders(): BackendProvider[] {
    return [...this.builtins.values(), ...this.plugins.providers()];
  }

  // ---- events -------------------------------------------------------------

  onEvent(listener: EventListener): () => void {
    return this.events.on(listener);
  }

  private emit<E extends CoreEvent>(event: E, payload: EventPayload<E>): void {
    this.events.emit(event, payload);
  }

  // ---- calls ----------------------------------------------------------------

  /** The generic entry every transport uses: validates input and output against the API table. */
  async invoke(method: string, params: unknown, ctx: Partial<CallContext> = {}): Promise<unknown> {
    // The approvals policy (tree-sitter and the bash grammar, several MB) loads when someone first talks to the
    // Core, not at start: an idle Core does not hold it, and a client's first tool call rarely waits for it.
    this.commandApprovals.warm();
    if (!isCoreMethod(method)) throw new SwitchboardError('bad_request', `unknown method "${method}"`);
    const input = coreMethods[method].input.safeParse(params ?? {});
    if (!input.success)
      throw new SwitchboardError('bad_request', `${method}: ${input.error.issues[0]?.message ?? 'invalid input'}`);
    const forPerson = methodCapability[method] === 'person';
    if (forPerson) {
      // A caller that did not show it is a person, and how, is an agent: the default is no.
      const refusal =
        ctx.personRefusal && ctx.person
          ? ctx.personRefusal()
          : 'the connection did not show that a person is behind it';
      if (refusal) throw personOnly(method, refusal);
    }
    const handler = this.handlers[method] as (input: unknown, ctx: CallContext) => Promise<unknown>;
    return handler(input.data, {
      client: ctx.client ?? 'cli',
      connection: ctx.connection ?? detachedConnection,
      ...(ctx.personRefusal ? { personRefusal: ctx.personRefusal } : {}),
      // Only where the check above passed: a handler that finds `person` set knows a person is behind the call.
      ...(forPerson && ctx.person ? { person: ctx.person } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.progress ? { progress: ctx.progress } : {}),
    });
  }

  callTool(
    tool: string,
    args: Record<string, unknown>,
    client: ToolClient,
    signal?: AbortSignal,
    progress?: (note: ProgressNote) => void,
  ): Promise<ToolResult> {
    this.commandApprovals.warm();
    return this.dispatcher.call(tool, args, {
      client,
      ...(signal ? { signal } : {}),
      ...(progress ? { progress } : {}),
    });
  }

  listTargets(): TargetInfo[] {
    return listTargets({ targets: this.targets, sessions: this.sessions, health: this.health });
  }

  async close(): Promise<void> {
    this.targetsChanged.close();
    this.health.stop();
    this.retire.close();
    await this.processes.shutdown();
    this.approvals.close();
    await this.panes.closeAll();
    if (this.runtime instanceof Registry && this.started) await endSessionTargets(this.runtime, undefined, logLine);
    await this.sessions.shutdown();
    this.outputs.close();
    // A stopped call may have been answered while its command still had its grace (processes/endGently.ts).
    await endsSettled();
    this.plugins.close();
    // Only after everything it started was ended: the next run has nothing of this one to sweep.
    await Promise.all(this.startSweeps);
    this.runs.finish();
    this.config.close();
    this.runtime.close();
    await this.audit.close();
  }
}
