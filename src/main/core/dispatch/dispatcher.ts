// One path for every tool call: parse → one frozen snapshot → guards → environment → result + audit.
import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { SwitchboardError, formatZodError, toErrorPayload } from '../../../shared/errors.js';
import type { ToolClient, ToolResult } from '../../../shared/tools.js';
import type { ActivityEntry, ProgressNote } from '../../../shared/api.js';
import type { Environment, TargetSnapshot } from '../backends/index.js';
import type { TargetTable } from '../targets/index.js';
import type { Sessions } from '../sessions/index.js';
import type { ToolContext, ToolDef, ToolServices } from '../tools/index.js';
import { didYouMean, maskKnownSecrets } from '../platform/index.js';
import { type AuditLog, auditLine } from '../activity/index.js';
import { summarizeArgs, summarizeResult } from './summarize.js';
import { redact } from '../../../shared/redact.js';
import { ApprovalRefused, type ApprovalCall, type Authorization } from '../approvals/index.js';
import { CallProgress } from './callProgress.js';

export type { ToolContext, ToolDef, ToolHandler, ToolServices } from '../tools/index.js';

export interface CallOptions {
  client: ToolClient;
  /** Nested calls (execute_code) run on this snapshot, whatever execution_target they name. */
  pinned?: TargetSnapshot;
  signal?: AbortSignal;
  /** The caller wants to hear how a long call is getting on (held for approval, running, output so far). */
  progress?: (note: ProgressNote) => void;
}

/** What a guard sees; it may return new arguments, but the execution_target it saw is the one that runs. */
export interface GuardRequest {
  tool: string;
  args: Readonly<Record<string, unknown>>;
  snapshot: TargetSnapshot;
  client: ToolClient;
}
export type Guard = (req: GuardRequest) => Promise<{ args?: Record<string, unknown> } | void>;

export interface DispatcherDeps {
  targets: TargetTable;
  sessions: Sessions;
  audit: AuditLog;
  onActivity: (entry: ActivityEntry) => void;
  /** Holds the call's runtime identity while it runs, so a retired identity is not released under it. */
  holds?: { acquire(identity: string): () => void };
  /** The tools it serves (their declarations say how; nothing here knows a tool by name). */
  tools: readonly ToolDef[];
  services?: ToolServices;
  /**
   * What a call showed of its target's reachability: `undefined` when it reached the target (its handler used the
   * environment and did not fail to connect), the error's message when it could not reach it.
   */
  reachability?: (identity: string, problem: string | undefined) => void;
  /** Told after each call ended, answered or not. */
  finished?: () => void;
  /** The approval step (commandApprovals): without it every call runs unasked (tests of other parts). */
  approvals?: { authorize(call: ApprovalCall): Promise<Authorization> };
}

export class Dispatcher {
  private readonly defs = new Map<string, ToolDef>();
  private readonly guards: Guard[] = [];
  private services: ToolServices;

  constructor(private readonly deps: DispatcherDeps) {
    for (const def of deps.tools) this.defs.set(def.name, def);
    this.services = { ...deps.services };
  }

  /** Add a tool, or replace the declaration of one with the same name. */
  register(def: ToolDef): void {
    this.defs.set(def.name, def);
  }

  /** Services wired in after construction (background processes come with their manager). */
  provide(services: Partial<ToolServices>): void {
    this.services = { ...this.services, ...services };
  }

  /** The declaration of a tool, if this dispatcher serves it. */
  tool(name: string): ToolDef | undefined {
    return this.defs.get(name);
  }

  addGuard(guard: Guard): void {
    this.guards.push(guard);
  }

  tools(): string[] {
    return [...this.defs.keys()];
  }

  async call(tool: string, rawArgs: Record<string, unknown>, opts: CallOptions): Promise<ToolResult> {
    const started = Date.now();
    const entry: ActivityEntry = {
      id: randomUUID(),
      time: new Date(started).toISOString(),
      client: opts.client,
      tool,
      summary: summarizeArgs(this.defs.get(tool), rawArgs),
      status: 'running',
    };
    let snapshot: TargetSnapshot | undefined;
    let release: (() => void) | undefined;
    /** The snapshot whose environment the handler may use (set once the call got past its approval). */
    let reached: TargetSnapshot | undefined;
    /** What the approval adds to the result (approvals/commandApprovals.ts Authorization.note). */
    let approvalNote: string | undefined;
    let progress: CallProgress | undefined;
    try {
      const def = this.defs.get(tool);
      if (!def) {
        const guess = didYouMean(tool, [...this.defs.keys()]);
        throw new SwitchboardError(
          'unknown_tool',
          `unknown tool "${tool}"${guess ? ` — did you mean "${guess}"?` : ''}`,
          `tools: ${[...this.defs.keys()].join(', ')}`,
        );
      }
      const args = parseArgs(def, rawArgs);
      const requested = args.execution_target as string | undefined;

      this.deps.targets.refresh();
      if (opts.pinned) {
        // Pinned to the outer call's runtime identity, even if the script names another target.
        snapshot = opts.pinned;
      } else if (def.targetless) {
        // A targetless tool (process) still answers for a target that was removed: it looks processes up by name.
        snapshot = requested === undefined ? undefined : this.snapshotIfKnown(requested);
        if (!snapshot && requested !== undefined) entry.execution_target = requested;
      } else {
        snapshot = this.deps.targets.snapshot(requested);
      }
      if (snapshot) {
        release = this.deps.holds?.acquire(snapshot.identity);
        entry.execution_target = snapshot.name;
        entry.generation = snapshot.generation;
        if (snapshot.state === 'draining' && !def.drainSafe) {
          throw new SwitchboardError(
            'target_draining',
            `target "${snapshot.name}" is draining; new calls are refused`,
            'register a new generation or pick another target',
          );
        }
      }
      this.deps.onActivity({ ...entry });
      if (opts.progress) progress = new CallProgress(opts.progress, entry.execution_target, started);

      let finalArgs: Record<string, unknown> = args;
      if (snapshot) {
        for (const guard of this.guards) {
          const out = await guard({ tool, args: Object.freeze({ ...finalArgs }), snapshot, client: opts.client });
          if (out?.args) {
            assertSameTarget(finalArgs, out.args);
            finalArgs = parseArgs(def, out.args);
          }
        }
      }

      // A targetless call is judged on the target it acts on (process write: the process's target).
      const judgedOn = snapshot ?? this.actingOn(def, finalArgs);
      if (judgedOn && this.deps.approvals) {
        const auth = await this.deps.approvals.authorize({
          def,
          args: finalArgs,
          snapshot: judgedOn,
          client: opts.client,
          summary: entry.summary,
          signal: opts.signal,
          ...(progress ? { onAsked: (a) => progress?.asked(a.created_at, a.expires_at) } : {}),
        });
        progress?.answered();
        if (auth.outcome) {
          entry.approval = auth.outcome;
          this.deps.onActivity({ ...entry });
        }
        // Exactly what was judged (and approved) runs: a frozen copy bound to this runtime identity.
        finalArgs = auth.args as Record<string, unknown>;
        approvalNote = auth.note;
      }

      const ctx = this.context(snapshot, opts, progress);
      throwIfCancelled(opts.signal);
      reached = snapshot;
      const handled = await def.handler(ctx, finalArgs);
      const result = approvalNote === undefined ? handled : withNote(handled, approvalNote);
      if (snapshot && used(ctx)) this.deps.reachability?.(snapshot.identity, undefined);
      // The handler stopped its work when the signal fired (killing the command's group); the caller is told so.
      throwIfCancelled(opts.signal);
      // Where it ran, from the snapshot; a targetless call keeps what its handler said, or says nothing.
      const full: ToolResult = snapshot
        ? { ...result, execution_target: snapshot.name, generation: snapshot.generation }
        : omitEmptyPlace(result);
      entry.result = summarizeResult(full).slice(0, 8000);
      if (typeof full.exit_code === 'number' || full.exit_code === null) entry.exit_code = full.exit_code;
      this.finish(entry, started, 'ok');
      return full;
    } catch (caught) {
      const err = opts.signal?.aborted ? cancelledError() : caught;
      const payload = toErrorPayload(err);
      // A refused login is the target's health too: the sidebar says it, not only the call.
      const unreachable = payload.code === 'target_unreachable' || payload.code === 'auth_failed';
      if (reached && unreachable) this.deps.reachability?.(reached.identity, payload.message);
      if (caught instanceof ApprovalRefused) entry.approval = caught.outcome;
      const status =
        payload.code === 'cancelled' || entry.approval?.by === 'withdrawn'
          ? 'cancelled'
          : payload.code === 'approval_denied'
            ? 'denied'
            : 'error';
      this.finish(entry, started, status, payload.message);
      throw err instanceof SwitchboardError ? err : new SwitchboardError(payload.code, payload.message, payload.hint);
    } finally {
      progress?.stop();
      release?.();
    }
  }

  private actingOn(def: ToolDef, args: Record<string, unknown>): TargetSnapshot | undefined {
    const name = def.actsOn?.(args, this.services);
    return name === undefined ? undefined : this.snapshotIfKnown(name);
  }

  private snapshotIfKnown(name: string): TargetSnapshot | undefined {
    try {
      return this.deps.targets.snapshot(name);
    } catch (err) {
      if (err instanceof SwitchboardError && err.code === 'unknown_target') return undefined;
      throw err;
    }
  }

  private context(snapshot: TargetSnapshot | undefined, opts: CallOptions, progress?: CallProgress): ToolContext {
    const self = this;
    const ctx: ToolContext = {
      get snapshot(): TargetSnapshot {
        if (!snapshot) throw new SwitchboardError('bad_request', 'this call needs an execution_target');
        return snapshot;
      },
      get env(): Environment {
        if (!snapshot) throw new SwitchboardError('bad_request', 'this call needs an execution_target');
        usedEnvironment.add(ctx);
        return self.deps.sessions.environment(snapshot);
      },
      sessions: this.deps.sessions,
      services: this.services,
      tools: [...this.defs.values()],
      client: opts.client,
      signal: opts.signal,
      keepOutput: (keepAfterChars) => {
        const store = self.services.outputs;
        if (!store || !snapshot) return undefined;
        const spool = store.spool({ execution_target: snapshot.name, generation: snapshot.generation }, keepAfterChars);
        progress?.counting(spool);
        return spool;
      },
      nested: (tool, args, signal) => {
        if (!snapshot) throw new SwitchboardError('bad_request', 'nested calls need a target');
        return self.call(tool, args, { client: 'execute_code', pinned: snapshot, signal: signal ?? opts.signal });
      },
    };
    return ctx;
  }

  private finish(entry: ActivityEntry, started: number, status: ActivityEntry['status'], error?: string): void {
    entry.status = status;
    entry.duration_ms = Date.now() - started;
    // Error messages can quote the command (a shell error line), so they are redacted like the arguments.
    if (error) entry.error = maskKnownSecrets(redact(error));
    this.deps.onActivity({ ...entry });
    this.deps.audit.write(auditLine(entry, 'dispatch'));
    this.deps.finished?.();
  }
}

/** Contexts whose handler asked for the environment: a call that succeeded then reached its target. */
const usedEnvironment = new WeakSet<ToolContext>();
const used = (ctx: ToolContext): boolean => usedEnvironment.has(ctx);

function cancelledError(): SwitchboardError {
  return new SwitchboardError('cancelled', 'the call was cancelled by its caller; its command was stopped');
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelledError();
}

function omitEmptyPlace(result: ToolResult): ToolResult {
  const out: ToolResult = { ...result };
  if (!out.execution_target) delete out.execution_target;
  if (!out.generation) delete out.generation;
  return out;
}

/** Parse a tool's arguments; the old routing key `target` gets a hint where the tool has no such argument. */
export function parseArgs(def: ToolDef, raw: Record<string, unknown>): Record<string, unknown> {
  if ('target' in raw && !declaresKey(def.args, 'target')) {
    throw new SwitchboardError(
      'bad_request',
      `"target" is not an argument of ${def.name}`,
      'use "execution_target" to pick where the call runs',
    );
  }
  const parsed = def.args.safeParse(raw);
  if (!parsed.success) throw new SwitchboardError('bad_request', `${def.name}: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

function declaresKey(schema: z.ZodType, key: string): boolean {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return shape !== undefined && Object.hasOwn(shape, key);
}

/** Authorization binding: nothing after the guards saw the call may add, change or remove execution_target. */
export function assertSameTarget(before: Record<string, unknown>, after: Record<string, unknown>): void {
  const had = Object.hasOwn(before, 'execution_target') && before.execution_target !== undefined;
  const has = Object.hasOwn(after, 'execution_target') && after.execution_target !== undefined;
  if (had !== has || before.execution_target !== after.execution_target) {
    throw new SwitchboardError(
      'not_permitted',
      'a hook tried to change execution_target after authorization; the call was refused',
      'the target that was approved is the target that runs',
    );
  }
}

/** A result with a note: after its output when it has one, else as `note`. */
function withNote(result: ToolResult, note: string): ToolResult {
  if (typeof result.output === 'string') return { ...result, output: `${result.output.replace(/\n?$/, '\n')}${note}` };
  return { ...result, note };
}
