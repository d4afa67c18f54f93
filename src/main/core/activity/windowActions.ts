// Records what a person does from a client (kill a process; add, edit, drain or remove a target) in Activity and
// audit.jsonl, as tool calls are.
import { randomUUID } from 'node:crypto';
import type { ActivityEntry } from '../../../shared/api.js';
import type { ToolClient } from '../../../shared/tools.js';
import type { PersonWay } from '../../../shared/personWay.js';
import type { CallContext } from '../platform/index.js';
import { toErrorPayload } from '../../../shared/errors.js';
import { redact } from '../../../shared/redact.js';
import type { AuditLog } from './audit.js';
import type { ActivityLog } from './activityLog.js';
import { auditLine } from './auditLine.js';

export interface ActionInfo {
  client: ToolClient;
  /** How the person acting was known (their connection's word, from CallContext; see whoActs). */
  person?: PersonWay | undefined;
  /** The Core method that did it (`processes.kill`, `targets.remove` …): Activity's tool column. */
  tool: string;
  execution_target?: string | undefined;
  generation?: string | undefined;
  summary: string;
}

/** Who does an action, as the call's connection says (never the caller): its client and how the person was known. */
export function whoActs(ctx: Pick<CallContext, 'client' | 'person'>): Pick<ActionInfo, 'client' | 'person'> {
  return { client: ctx.client, ...(ctx.person ? { person: ctx.person } : {}) };
}

/**
 * Runs an action and records it: a running entry first, then ok or error with its duration; what it returns fills in
 * the identity.
 */
export type RecordAction = <T>(
  info: ActionInfo,
  run: () => Promise<T>,
  after?: (result: T) => Partial<Pick<ActionInfo, 'execution_target' | 'generation' | 'summary'>>,
) => Promise<T>;

export function actionRecorder(deps: { activity: ActivityLog; audit: AuditLog }): RecordAction {
  return async (info, run, after) => {
    const started = Date.now();
    const entry: ActivityEntry = {
      id: randomUUID(),
      time: new Date(started).toISOString(),
      client: info.client,
      ...(info.person ? { person: info.person } : {}),
      tool: info.tool,
      ...(info.execution_target ? { execution_target: info.execution_target } : {}),
      ...(info.generation ? { generation: info.generation } : {}),
      summary: redact(info.summary),
      status: 'running',
    };
    deps.activity.record({ ...entry });
    const finish = (status: 'ok' | 'error', error?: string): void => {
      entry.status = status;
      entry.duration_ms = Date.now() - started;
      if (error) entry.error = redact(error);
      deps.activity.record({ ...entry });
      deps.audit.write(auditLine(entry, 'action'));
    };
    try {
      const result = await run();
      const more = after?.(result) ?? {};
      if (more.execution_target) entry.execution_target = more.execution_target;
      if (more.generation) entry.generation = more.generation;
      if (more.summary) entry.summary = redact(more.summary);
      finish('ok');
      return result;
    } catch (err) {
      finish('error', toErrorPayload(err).message);
      throw err;
    }
  };
}
