// The Core API, declared once: every transport, the renderer client and the CLI are derived from this table.
// Over 380 lines: a table of every method and event with its schemas and who may call it, declared once.
import * as z from 'zod';
import { ErrorPayload } from './errors.js';
import { SandboxInfo, TargetInfo } from './targets.js';
import { ToolClient, ToolResult, toolNames } from './toolResult.js';
import { ApprovalDecision, ApprovalOutcome, ApprovalRule, PendingApproval } from './approvals.js';
import { BackendInfo } from './specFields.js';
import { PluginInfo } from './plugins.js';
import { PersonWay } from './personWay.js';
import { lazyTable } from './lazyTable.js';

// The tables below build each entry on first use (lazyTable) and the larger schemas here are z.lazy, for the same
// reason: a client that makes one call builds one method's schemas (z.lazy accepts what the schema inside accepts).

export const ActivityEntry = z.lazy(() =>
  z.object({
    id: z.string(),
    time: z.string(),
    client: ToolClient,
    /** A person's action (not a tool call): how the person was known — the window, a link's page, a terminal. */
    person: PersonWay.optional(),
    tool: z.string(),
    execution_target: z.string().optional(),
    generation: z.string().optional(),
    summary: z.string(),
    status: z.enum(['running', 'ok', 'error', 'denied', 'cancelled']),
    duration_ms: z.number().optional(),
    error: z.string().optional(),
    /** The command's exit status, for a call that ran one (`terminal`, `execute_code`): ok with 2 is not all right. */
    exit_code: z.number().int().nullable().optional(),
    /**
     * What the call returned, summarized and redacted (`key: value` lines; long output clipped); never in audit.jsonl.
     */
    result: z.string().max(8000).optional(),
    /** Set when the call was held for approval (or refused by policy): who decided, how, after how long. */
    approval: ApprovalOutcome.optional(),
  }),
);
export type ActivityEntry = z.infer<typeof ActivityEntry>;

/** Where a background process is: still running, ended by itself, killed, or lost with the connection that held it. */
export const ProcessStatus = z.enum(['running', 'exited', 'killed', 'lost']);

export const ProcessInfo = z.lazy(() =>
  z.object({
    session_id: z.string(),
    execution_target: z.string(),
    generation: z.string(),
    command: z.string(),
    cwd: z.string(),
    status: ProcessStatus,
    exit_code: z.number().int().nullable(),
    /** Why it ended without an exit code of its own (`lost`: the connection or plugin host that held it went). */
    reason: z.string().optional(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    output_chars: z.number().int(),
  }),
);
export type ProcessInfo = z.infer<typeof ProcessInfo>;

/**
 * Where a pane whose connection dropped is in reconnecting: `waiting` until `retry_at` (ms since the epoch), `trying`
 * now, or `reconnected`; `error` is why the last attempt failed.
 */
export const PaneReconnect = z.lazy(() =>
  z.object({
    state: z.enum(['waiting', 'trying', 'reconnected']),
    attempt: z.number().int().min(0),
    retry_at: z.number().optional(),
    error: z.string().optional(),
  }),
);
export type PaneReconnect = z.infer<typeof PaneReconnect>;

export const PaneInfo = z.lazy(() =>
  z.object({
    pane_id: z.string(),
    execution_target: z.string(),
    generation: z.string(),
    cwd: z.string().optional(),
    /**
     * The directory the pane was to start in did not exist there; it started in `cwd` (its nearest existing parent)
     * instead.
     */
    cwd_missing: z.string().optional(),
    status: z.enum(['open', 'reconnecting', 'exited', 'lost']),
    /** While `reconnecting`: the countdown to the next attempt, or the attempt under way. */
    reconnect: PaneReconnect.optional(),
  }),
);
export type PaneInfo = z.infer<typeof PaneInfo>;

export const DoctorReport = z.lazy(() =>
  z.object({
    home: z.string(),
    backends: z.array(z.object({ backend: z.string(), flags: z.record(z.string(), z.unknown()) })),
    targets: z.array(
      z.object({
        name: z.string(),
        generation: z.string(),
        backend: z.string(),
        source: z.string(),
        state: z.string(),
        ok: z.boolean(),
        detail: z.string().optional(),
        problem: z.string().optional(),
        ms: z.number(),
        /** Whether agent work runs in a sandbox or a container that holds it in, and why not (TargetInfo.sandbox). */
        sandbox: SandboxInfo.optional(),
      }),
    ),
    problems: z.array(z.string()),
    /**
     * What works but should change, one line each with what to change: a target whose work runs unsandboxed though
     * it could be held in (an attached container that is privileged, or has the engine's socket inside …).
     */
    warnings: z.array(z.string()).optional(),
    /**
     * Each installed plugin: its state, whether its backends can run here, its requirement problems and doctor checks.
     */
    plugins: z
      .array(
        PluginInfo.unwrap().extend({
          available: z.boolean().optional(),
          /** `target NAME: problem` for each target of its backends whose spec fails check_requirements. */
          requirements: z.array(z.string()),
          checks: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string().optional() })),
        }),
      )
      .optional(),
  }),
);
export type DoctorReport = z.infer<typeof DoctorReport>;

/** A tab's nested splits: a leaf is an index into the tab's `panes`; `ratio` is side a's share. */
export type SavedSplit = number | { dir: 'right' | 'down'; ratio: number; a: SavedSplit; b: SavedSplit };
export const SavedSplit: z.ZodType<SavedSplit> = z.lazy(() =>
  z.union([
    z.number().int().min(0).max(15),
    z.object({ dir: z.enum(['right', 'down']), ratio: z.number().min(0).max(1), a: SavedSplit, b: SavedSplit }),
  ]),
);

/** The colours a person can mark a tab with (its context menu); drawn as a stripe on the tab. */
export const TabColor = z.enum(['red', 'orange', 'yellow', 'green', 'blue', 'purple']);
export type TabColor = z.infer<typeof TabColor>;

/** The tabs and panes of the window (targets only; terminals are new on restore), kept across restarts. */
export const WorkspaceLayout = z.lazy(() =>
  z.object({
    tabs: z
      .array(
        z.object({
          /** `pane_id`: the Core's pane the window had there, resumed on reload while the Core still keeps it. */
          panes: z
            .array(z.object({ target: z.string().min(1).max(64), pane_id: z.string().min(1).max(64).optional() }))
            .min(1)
            .max(16),
          /** How the panes are split; absent (older saves): side by side. */
          split: SavedSplit.optional(),
          /** A title the person gave the tab. */
          title: z.string().min(1).max(128).optional(),
          /** A colour this build does not know (a newer one saved it) is dropped, not the whole layout. */
          color: TabColor.optional().catch(undefined),
        }),
      )
      .max(64),
    active_tab: z.number().int().min(0),
  }),
);
export type WorkspaceLayout = z.infer<typeof WorkspaceLayout>;

/**
 * The window's settings (font, zoom, theme …) kept in the profile; the renderer checks each field against its own
 * schema.
 */
// Strings up to 4,000 chars: the keyboard shortcuts a person set are one JSON value.
export const UiSettings = z
  .record(z.string().max(64), z.union([z.string().max(4000), z.number(), z.boolean()]))
  .refine((r) => Object.keys(r).length <= 64, 'at most 64 settings');
export type UiSettings = z.infer<typeof UiSettings>;

/** The events a connection may subscribe to (everything but pane output, which goes by pane). */
export const SubscribableEvent = z.enum([
  'targets.changed',
  'targets.problems',
  'activity',
  'processes.changed',
  'approvals.changed',
  'approvals.rules',
  'process.output',
  'backends.changed',
]);
export type SubscribableEvent = z.infer<typeof SubscribableEvent>;

const PaneRef = z.object({ pane_id: z.string().min(1) });
/**
 * This connection takes the pane's output as binary frames (shared/paneFrame.ts) where its carrier has them (a
 * WebSocket); without it, or over Electron IPC, output comes as JSON `pane.data` events.
 */
const PaneBinary = z.boolean().optional();

/** Request/response methods: name → input and output schema (each built when first used: lazyTable). */
export const coreMethods = lazyTable({
  'targets.list': () => ({ input: z.object({}), output: z.array(TargetInfo) }),
  /** What could not be used: a broken config edit (the previous config stays), bad registry records, shadowed names. */
  'targets.problems': () => ({ input: z.object({}), output: z.array(z.string()) }),
  /**
   * Runtime targets changed from the UI (provider `ui`); the CLI writes the registry file directly. `session`: a
   * session target (quick connect), removed when this Core stops; registering its name again without `session` keeps
   * it.
   */
  'targets.register': () => ({
    input: z.object({
      name: z.string().min(1),
      spec: z.record(z.string(), z.unknown()),
      replace: z.boolean().optional(),
      if_generation: z.string().optional(),
      session: z.boolean().optional(),
    }),
    output: z.object({ action: z.string(), name: z.string(), generation: z.string() }),
  }),
  /**
   * A person lets the CLI register runtime targets into a weaker sandbox (`targets register`, which then writes the
   * registry itself): a person-only method, so the Core judges the process behind the connection. Asked first with
   * `confirmed: false` (nothing is recorded), then, once the person said yes, with `confirmed: true`: each entry goes
   * to Activity and audit.jsonl with who registers it and what weakens.
   */
  'targets.allowWeakening': () => ({
    input: z.object({
      entries: z
        .array(
          z.object({
            name: z.string().min(1),
            weakenings: z.array(z.string().min(1)).min(1),
            provider: z.string().min(1),
            owner_id: z.string().optional(),
          }),
        )
        .min(1),
      confirmed: z.boolean(),
    }),
    output: z.object({ recorded: z.number().int().min(0) }),
  }),
  /**
   * The hosts of the person's ~/.ssh/config (no wildcard patterns), resolved, each with the spec of an SSH target for
   * it: the Add-target form's pick list.
   */
  'targets.sshHosts': () => ({
    input: z.object({}),
    output: z.array(
      z.object({
        alias: z.string(),
        host: z.string(),
        user: z.string().optional(),
        port: z.number().int().optional(),
        spec: z.record(z.string(), z.unknown()),
      }),
    ),
  }),
  /** The spec of an SSH target for a quick-connect destination (`user@host:port`, read by shared/quickConnect.ts). */
  'targets.quickSpec': () => ({
    input: z.object({
      host: z.string().min(1).max(253),
      user: z.string().min(1).max(64).optional(),
      port: z.number().int().min(1).max(65_535).optional(),
      key: z.string().min(1).max(4096).optional(),
    }),
    output: z.record(z.string(), z.unknown()),
  }),
  /** The backends this Core knows: flags and declared spec fields (the Add-target form is built from them). */
  'backends.list': () => ({ input: z.object({}), output: z.array(BackendInfo) }),
  'plugins.list': () => ({ input: z.object({}), output: z.array(PluginInfo) }),
  /** Loads the plugin now (no restart) and remembers it is enabled; its backends appear in `backends.changed`. */
  'plugins.enable': () => ({ input: z.object({ name: z.string().min(1).max(64) }), output: PluginInfo }),
  'plugins.disable': () => ({ input: z.object({ name: z.string().min(1).max(64) }), output: PluginInfo }),
  /** A new host for an enabled plugin, its crash count from zero: how one failed by too many crashes comes back. */
  'plugins.restart': () => ({ input: z.object({ name: z.string().min(1).max(64) }), output: PluginInfo }),
  /** Copies a plugin folder (or npm package folder) into the profile's plugins/; installed disabled. */
  'plugins.install': () => ({ input: z.object({ path: z.string().min(1).max(4096) }), output: PluginInfo }),
  'targets.drain': () => ({
    input: z.object({ name: z.string().min(1), generation: z.string().optional() }),
    output: z.object({ action: z.string(), name: z.string(), generation: z.string() }),
  }),
  'targets.remove': () => ({
    input: z.object({ name: z.string().min(1), generation: z.string().optional() }),
    output: z.object({ action: z.string(), name: z.string(), generation: z.string() }),
  }),
  'tool.call': () => ({
    input: z.object({
      tool: z.enum(toolNames as [string, ...string[]]).or(z.string()),
      args: z.record(z.string(), z.unknown()),
      client: ToolClient.optional(),
      /** Send `progress` messages for this call while it waits for a person or runs long (WireProgress). */
      progress: z.boolean().optional(),
    }),
    output: ToolResult,
  }),
  'pane.open': () => ({
    input: z.object({
      execution_target: z.string().min(1),
      cols: z.number().int().min(2).max(1000),
      rows: z.number().int().min(1).max(500),
      /**
       * A window's pane: when this connection goes, the shell keeps running for `terminal.pane_keep` seconds so a
       * reloaded window can resume it.
       */
      keep: z.boolean().optional(),
      binary: PaneBinary,
      /**
       * Where the shell starts (an absolute path on the target) instead of where the target's work is: a split in its
       * source pane's directory, a shell started again where the pane's last one was.
       */
      cwd: z.string().min(1).max(4096).regex(/^\//, 'an absolute path on the target').optional(),
    }),
    output: PaneInfo,
  }),
  'pane.write': () => ({ input: PaneRef.extend({ data: z.string().max(1_000_000) }), output: z.object({}) }),
  'pane.resize': () => ({
    input: PaneRef.extend({ cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(500) }),
    output: z.object({}),
  }),
  /** The renderer acknowledges chars it has written to xterm; the Core pauses the pty above a high watermark. */
  'pane.ack': () => ({ input: PaneRef.extend({ chars: z.number().int().min(0) }), output: z.object({}) }),
  /**
   * Receive this pane's output too (another window's pane); output from now on, the pane stays open when this
   * connection goes.
   */
  'pane.attach': () => ({ input: PaneRef.extend({ binary: PaneBinary }), output: PaneInfo }),
  /**
   * A window takes back a pane it had (after a reload): its recent output is replayed, and it is this connection's own
   * from now on.
   */
  'pane.resume': () => ({
    input: PaneRef.extend({ binary: PaneBinary }),
    output: PaneInfo.unwrap().extend({ scrollback: z.string() }),
  }),
  'pane.close': () => ({ input: PaneRef, output: z.object({}) }),
  /** The window cleared the pane's screen: a window that resumes the pane replays from its current line on. */
  'pane.clear': () => ({ input: PaneRef, output: z.object({}) }),
  /** A pane whose connection dropped: try again `now` (skipping the wait), or `cancel` the attempts (the pane ends). */
  'pane.reconnect': () => ({
    input: PaneRef.extend({ action: z.enum(['now', 'cancel']) }),
    output: z.object({}),
  }),
  'pane.list': () => ({ input: z.object({}), output: z.array(PaneInfo) }),
  'processes.list': () => ({
    input: z.object({ execution_target: z.string().optional() }),
    output: z.array(ProcessInfo),
  }),
  'processes.log': () => ({
    input: z.object({ session_id: z.string().min(1), lines: z.number().int().positive().optional() }),
    output: z.object({ output: z.string() }),
  }),
  'processes.kill': () => ({ input: z.object({ session_id: z.string().min(1) }), output: ProcessInfo }),
  'doctor.run': () => ({
    input: z.object({ timeout_ms: z.number().int().positive().max(60_000).optional() }),
    output: DoctorReport,
  }),
  /** Pending approvals with secrets in their commands redacted (an agent may read it; highlights are left out). */
  'approvals.list': () => ({ input: z.object({}), output: z.array(PendingApproval) }),
  /** Pending approvals in full, for the person who decides them (the window's dialog). */
  'approvals.pending': () => ({ input: z.object({}), output: z.array(PendingApproval) }),
  'approvals.decide': () => ({
    input: ApprovalDecision,
    output: z.object({ id: z.string(), decision: z.enum(['approve', 'deny']) }),
  }),
  /** Persisted "always allow" rules; revoking one makes the next matching call ask again. */
  'approvals.rules': () => ({ input: z.object({}), output: z.array(ApprovalRule) }),
  'approvals.revoke': () => ({ input: z.object({ id: z.string().min(1) }), output: z.object({ id: z.string() }) }),
  'workspace.get': () => ({ input: z.object({}), output: WorkspaceLayout.nullable() }),
  'workspace.save': () => ({ input: WorkspaceLayout, output: z.object({}) }),
  /** The window's settings from the profile; null before any were saved. */
  'settings.get': () => ({ input: z.object({}), output: UiSettings.nullable() }),
  'settings.save': () => ({ input: UiSettings, output: z.object({}) }),
  /**
   * A new person link for the served page (`switchboard open`): a one-time code for the page URL's #fragment, good once
   * within `valid_s`; the page trades it for the person's cookie (shared/personPage.ts). Only a person gets one.
   */
  'window.link': () => ({
    input: z.object({}),
    output: z.object({ code: z.string(), valid_s: z.number().int().positive() }),
  }),
  'activity.list': () => ({
    input: z.object({ limit: z.number().int().positive().max(1000).optional() }),
    output: z.array(ActivityEntry),
  }),
  /**
   * A connection receives only the events it subscribed to (pane events go by pane: those it opened or attached).
   * A `switchboard call` or `mcp` connection subscribes to nothing and so receives replies only.
   */
  'events.subscribe': () => ({ input: z.object({ events: z.array(SubscribableEvent).max(32) }), output: z.object({}) }),
  'events.unsubscribe': () => ({
    input: z.object({ events: z.array(SubscribableEvent).max(32) }),
    output: z.object({}),
  }),
});

export type CoreMethod = keyof typeof coreMethods;

/**
 * Who may call a method. `agent`: any holder of the Core's token (core.json, an MCP client's config) — tool calls and
 * reads an agent needs. `person`: only a person — the Electron window's own channel, the page opened from the link
 * `switchboard serve` hands to its terminal (or `switchboard open`), or a CLI process at a terminal of its own outside
 * every agent sandbox and tool call. A connection whose capability is unknown is an agent, never a person.
 */
export const Capability = z.enum(['agent', 'person']);
export type Capability = z.infer<typeof Capability>;

/** The capability each method needs, declared beside its schemas; a method missing here fails to compile. */
export const methodCapability = {
  'targets.list': 'agent',
  'targets.problems': 'agent',
  'targets.register': 'person',
  'targets.allowWeakening': 'person',
  'targets.sshHosts': 'person',
  'targets.quickSpec': 'person',
  'backends.list': 'agent',
  'plugins.list': 'person',
  'plugins.enable': 'person',
  'plugins.disable': 'person',
  'plugins.restart': 'person',
  'plugins.install': 'person',
  'targets.drain': 'person',
  'targets.remove': 'person',
  'tool.call': 'agent',
  'pane.open': 'person',
  'pane.write': 'person',
  'pane.resize': 'person',
  'pane.ack': 'person',
  'pane.attach': 'person',
  'pane.resume': 'person',
  'pane.close': 'person',
  'pane.clear': 'person',
  'pane.reconnect': 'person',
  'pane.list': 'person',
  'processes.list': 'person',
  'processes.log': 'person',
  'processes.kill': 'person',
  'doctor.run': 'agent',
  'approvals.list': 'agent',
  'approvals.pending': 'person',
  'approvals.decide': 'person',
  'approvals.rules': 'person',
  'approvals.revoke': 'person',
  'workspace.get': 'person',
  'workspace.save': 'person',
  'settings.get': 'person',
  'settings.save': 'person',
  'activity.list': 'person',
  'window.link': 'person',
  'events.subscribe': 'person',
  'events.unsubscribe': 'person',
} as const satisfies Record<CoreMethod, Capability>;
export type MethodInput<M extends CoreMethod> = z.infer<(typeof coreMethods)[M]['input']>;
export type MethodOutput<M extends CoreMethod> = z.infer<(typeof coreMethods)[M]['output']>;

/** Events the Core pushes to the connections that subscribed to them (pane.* to the pane's connections). */
export const coreEvents = lazyTable({
  'targets.changed': () => z.array(TargetInfo),
  'targets.problems': () => z.array(z.string()),
  /**
   * On the wire a JSON event carries `data` as a string; a binary frame (shared/paneFrame.ts) arrives at a client as
   * UTF-8 bytes. `chars` is the count to acknowledge (a string's length; older Cores left it out of JSON events).
   * Inside the Core the event carries the pty's bytes; each connection decodes or frames them for its client.
   */
  'pane.data': () =>
    z.object({
      pane_id: z.string(),
      data: z.union([z.string(), z.instanceof(Uint8Array)]),
      chars: z.number().int().min(0).optional(),
    }),
  'pane.cwd': () => z.object({ pane_id: z.string(), cwd: z.string() }),
  /** `detail`: why a pane whose connection dropped was not reconnected (a changed host key, a refused login). */
  'pane.exit': () =>
    z.object({
      pane_id: z.string(),
      exit_code: z.number().int().nullable(),
      reason: z.string().optional(),
      detail: z.string().optional(),
    }),
  'pane.reconnect': () => PaneReconnect.unwrap().extend({ pane_id: z.string() }),
  activity: () => ActivityEntry,
  'processes.changed': () => z.array(ProcessInfo),
  'approvals.changed': () => z.array(PendingApproval),
  'approvals.rules': () => z.array(ApprovalRule),
  'process.output': () => z.object({ session_id: z.string(), data: z.string() }),
  /** The backends changed (a plugin was enabled, disabled or its host came back): the whole list. */
  'backends.changed': () => z.array(BackendInfo),
});

export type CoreEvent = keyof typeof coreEvents;

/** Pane events are not subscribed to: they reach the connections that opened or attached the pane. */
export const paneEvents = [
  'pane.data',
  'pane.cwd',
  'pane.exit',
  'pane.reconnect',
] as const satisfies readonly CoreEvent[];
export type PaneEvent = (typeof paneEvents)[number];
export function isPaneEvent(name: string): name is PaneEvent {
  return (paneEvents as readonly string[]).includes(name);
}
// Every event is either subscribable or a pane event: adding an event to coreEvents without deciding fails to compile.
const everyEventRouted: Record<Exclude<CoreEvent, PaneEvent>, true> & Record<SubscribableEvent, true> = {
  'targets.changed': true,
  'targets.problems': true,
  activity: true,
  'processes.changed': true,
  'approvals.changed': true,
  'approvals.rules': true,
  'process.output': true,
  'backends.changed': true,
};
void everyEventRouted;
export type EventPayload<E extends CoreEvent> = z.infer<(typeof coreEvents)[E]>;

/** Wire messages of the WebSocket and Electron adapters. */
/** A request id: the caller's own, echoed in the reply (whole numbers from our clients; short strings are fine too). */
export const WireId = z.union([z.number().int(), z.string().max(128)]);
export const WireCall = z.object({ type: z.literal('call'), id: WireId, method: z.string(), params: z.unknown() });
/** Withdraw one of this connection's calls in flight: its work is stopped and the call is answered `cancelled`. */
export const WireCancel = z.object({ type: z.literal('cancel'), id: WireId });
/**
 * What `pane.ack` does, without a reply: a window acknowledges its panes' output many times a second in a flood, and
 * a reply to each (a message to write, a wake-up for the window) cost the Core as much as the ack itself.
 */
export const WireAck = z.object({
  type: z.literal('ack'),
  pane_id: z.string().min(1).max(128),
  chars: z.number().int().min(0),
});
export const WireRequest = z.union([WireCall, WireCancel, WireAck]);
export const WireResponse = z.union([
  z.object({ type: z.literal('result'), id: WireId, ok: z.literal(true), result: z.unknown() }),
  // id null: a request so malformed that it carried no usable id is still answered.
  z.object({ type: z.literal('result'), id: WireId.nullable(), ok: z.literal(false), error: ErrorPayload }),
]);
export const WireEvent = z.object({ type: z.literal('event'), event: z.string(), payload: z.unknown() });
/**
 * How a call that asked for it (tool.call's `progress`) is getting on, sent to its caller before its result:
 * `progress` grows with every message, `message` says what is happening ("waiting for a person to approve on …").
 */
export const ProgressNote = z.object({ progress: z.number(), message: z.string() });
export type ProgressNote = z.infer<typeof ProgressNote>;
export const WireProgress = ProgressNote.extend({ type: z.literal('progress'), id: WireId });
export const WireMessage = z.union([WireResponse, WireEvent, WireProgress]);
export type WireCall = z.infer<typeof WireCall>;
export type WireRequest = z.infer<typeof WireRequest>;
export type WireResponse = z.infer<typeof WireResponse>;
export type WireEvent = z.infer<typeof WireEvent>;
export type WireProgress = z.infer<typeof WireProgress>;

export function isCoreMethod(name: string): name is CoreMethod {
  return Object.hasOwn(coreMethods, name);
}
export function isCoreEvent(name: string): name is CoreEvent {
  return Object.hasOwn(coreEvents, name);
}
