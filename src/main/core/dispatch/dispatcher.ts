// One path for every tool call: parse → one frozen snapshot → guards → environment → result + audit.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { SwitchboardError, formatZodError, toErrorPayload } from '../../../shared/errors.js';
import { toolArgSchemas, type ToolClient, type ToolName, type ToolResult } from '../../../shared/tools.js';
import type { ActivityEntry } from '../../../shared/api.js';
import type { Environment, TargetSnapshot } from '../backends/provider.js';
import type { TargetTable } from '../registry/targetTable.js';
import type { Sessions } from '../sessions/sessions.js';
import { didYouMean } from '../config/didYouMean.js';
import { redact, summarizeArgs, type AuditLog } from './audit.js';

export interface CallOptions {
  client: ToolClient;
  /** Nested calls (execute_code) run on this snapshot, whatever execution_target they name. */
  pinned?: TargetSnapshot;
  signal?: AbortSignal;
}

export interface ToolContext {
  snapshot: TargetSnapshot;
  env: Environment;
  sessions: Sessions;
  client: ToolClient;
  signal: AbortSignal | undefined;
  /** Make a nested tool call pinned to this context's snapshot; `signal` (default: this call's) cancels it. */
  nested(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
}

export type ToolHandler = (ctx: ToolContext, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

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
}

/** Tools that must not be refused on a draining target (they inspect or stop work already running). */
const drainSafeTools = new Set(['process', 'list_targets']);

export class Dispatcher {
  private readonly handlers = new Map<string, ToolHandler>();
  private readonly guards: Guard[] = [];
  /** Tools that run without a target environment (list_targets, process without a target). */
  private readonly targetless = new Set<string>();

  constructor(private readonly deps: DispatcherDeps) {}

  register(tool: ToolName, handler: ToolHandler, opts: { targetless?: boolean } = {}): void {
    this.handlers.set(tool, handler);
    if (opts.targetless) this.targetless.add(tool);
  }

  addGuard(guard: Guard): void {
    this.guards.push(guard);
  }

  tools(): string[] {
    return [...this.handlers.keys()];
  }

  async call(tool: string, rawArgs: Record<string, unknown>, opts: CallOptions): Promise<ToolResult> {
    const started = Date.now();
    const entry: ActivityEntry = {
      id: randomUUID(),
      time: new Date(started).toISOString(),
      client: opts.client,
      tool,
      summary: summarizeArgs(tool, rawArgs),
      status: 'running',
    };
    let snapshot: TargetSnapshot | undefined;
    let release: (() => void) | undefined;
    try {
      const handler = this.handlers.get(tool);
      if (!handler) {
        const guess = didYouMean(tool, [...this.handlers.keys()]);
        throw new SwitchboardError('unknown_tool', `unknown tool "${tool}"${guess ? ` — did you mean "${guess}"?` : ''}`, `tools: ${[...this.handlers.keys()].join(', ')}`);
      }
      const args = parseArgs(tool as ToolName, rawArgs);
      const requested = args.execution_target as string | undefined;

      this.deps.targets.refresh();
      if (opts.pinned) {
        // Pinned to the outer call's runtime identity, even if the script names another target.
        snapshot = opts.pinned;
      } else if (this.targetless.has(tool)) {
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
        if (snapshot.state === 'draining' && !drainSafeTools.has(tool)) {
          throw new SwitchboardError('target_draining', `target "${snapshot.name}" is draining; new calls are refused`, 'register a new generation or pick another target');
        }
      }
      this.deps.onActivity({ ...entry });

      let finalArgs: Record<string, unknown> = args;
      if (snapshot) {
        for (const guard of this.guards) {
          const out = await guard({ tool, args: Object.freeze({ ...finalArgs }), snapshot, client: opts.client });
          if (out?.args) {
            assertSameTarget(finalArgs, out.args);
            finalArgs = parseArgs(tool as ToolName, out.args);
          }
        }
      }

      const ctx = this.context(snapshot, opts);
      const result = await handler(ctx, finalArgs);
      const full: ToolResult = {
        ...result,
        execution_target: snapshot?.name ?? (result.execution_target as string | undefined) ?? '',
        generation: snapshot?.generation ?? (result.generation as string | undefined) ?? '',
      };
      this.finish(entry, started, 'ok');
      return full;
    } catch (err) {
      const payload = toErrorPayload(err);
      this.finish(entry, started, payload.code === 'approval_denied' ? 'denied' : 'error', payload.message);
      throw err instanceof SwitchboardError ? err : new SwitchboardError(payload.code, payload.message, payload.hint);
    } finally {
      release?.();
    }
  }

  private snapshotIfKnown(name: string): TargetSnapshot | undefined {
    try {
      return this.deps.targets.snapshot(name);
    } catch (err) {
      if (err instanceof SwitchboardError && err.code === 'unknown_target') return undefined;
      throw err;
    }
  }

  private context(snapshot: TargetSnapshot | undefined, opts: CallOptions): ToolContext {
    const self = this;
    return {
      get snapshot(): TargetSnapshot {
        if (!snapshot) throw new SwitchboardError('bad_request', 'this call needs an execution_target');
        return snapshot;
      },
      get env(): Environment {
        if (!snapshot) throw new SwitchboardError('bad_request', 'this call needs an execution_target');
        return self.deps.sessions.environment(snapshot);
      },
      sessions: this.deps.sessions,
      client: opts.client,
      signal: opts.signal,
      nested: (tool, args, signal) => {
        if (!snapshot) throw new SwitchboardError('bad_request', 'nested calls need a target');
        return self.call(tool, args, { client: 'execute_code', pinned: snapshot, signal: signal ?? opts.signal });
      },
    };
  }

  private finish(entry: ActivityEntry, started: number, status: ActivityEntry['status'], error?: string): void {
    entry.status = status;
    entry.duration_ms = Date.now() - started;
    // Error messages can quote the command (a shell error line), so they are redacted like the arguments.
    if (error) entry.error = redact(error);
    this.deps.onActivity({ ...entry });
    this.deps.audit.write({
      time: entry.time,
      kind: 'dispatch',
      client: entry.client,
      tool: entry.tool,
      execution_target: entry.execution_target,
      generation: entry.generation,
      args: entry.summary,
      outcome: status,
      duration_ms: entry.duration_ms,
      ...(entry.error ? { error: entry.error } : {}),
    });
  }
}

/** Parse a tool's arguments; the old routing key `target` gets a hint instead of a bare error. */
export function parseArgs(tool: ToolName, raw: Record<string, unknown>): Record<string, unknown> {
  if (tool !== 'search_files' && 'target' in raw) {
    throw new SwitchboardError('bad_request', `"target" is not an argument of ${tool}`, 'use "execution_target" to pick where the call runs');
  }
  const schema = toolArgSchemas[tool] as z.ZodType<Record<string, unknown>>;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new SwitchboardError('bad_request', `${tool}: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

/** Authorization binding: nothing after the guards saw the call may add, change or remove execution_target. */
export function assertSameTarget(before: Record<string, unknown>, after: Record<string, unknown>): void {
  const had = Object.prototype.hasOwnProperty.call(before, 'execution_target') && before.execution_target !== undefined;
  const has = Object.prototype.hasOwnProperty.call(after, 'execution_target') && after.execution_target !== undefined;
  if (had !== has || before.execution_target !== after.execution_target) {
    throw new SwitchboardError(
      'not_permitted',
      'a hook tried to change execution_target after authorization; the call was refused',
      'the target that was approved is the target that runs',
    );
  }
}
