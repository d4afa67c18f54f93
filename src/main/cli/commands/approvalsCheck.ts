// `switchboard approvals check 'CMD'`: the policy's verdict and reasons for a command, a file write or code,
// without running anything and without a Core (a dry run of the approvals policy).
import type { Command } from 'commander';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { ApprovalsMode } from '../../../shared/approvals.js';
import { redact } from '../../../shared/redact.js';
import { SwitchboardError, formatZodError } from '../../../shared/errors.js';
import { builtinSpecSchemas } from '../../core/backends/index.js';
import { switchboardHome } from '../../core/platform/index.js';
import { ConfigStore } from '../../core/config/index.js';
import type { PolicyCall, PolicyContext } from '../../core/approvals/index.js';
import { toolDefs } from '../../core/tools/index.js';
import { action, printJson } from '../output.js';
import { loadTargets } from './targetsList.js';

/** The approvals mode from config.yaml; a config that cannot be read leaves the default. */
function configuredMode(): ApprovalsMode {
  try {
    return new ConfigStore(switchboardHome(), builtinSpecSchemas).config.approvals.mode;
  } catch {
    // a config that does not load: judge as the default mode would
    return 'ask';
  }
}

/** The context the Core would classify with: the target's flags and cwd, the configured mode. */
async function contextFor(target: string | undefined): Promise<{ ctx: PolicyContext; assumed: string }> {
  const mode = configuredMode();
  if (!target)
    return { ctx: { mode, home: homedir() }, assumed: `no target given: mode ${mode}, local home, no container flags` };
  const { targets } = await loadTargets();
  const t = targets.find((x) => x.name === target);
  if (!t)
    throw new SwitchboardError(
      'unknown_target',
      `no target named "${target}"`,
      'list them with `switchboard targets list`',
    );
  const flags = t.flags;
  const remote = !flags || flags.is_remote || flags.is_container;
  const ctx: PolicyContext = {
    mode,
    home: remote ? '~' : homedir(),
    ...(t.cwd ? { cwd: t.cwd } : {}),
    flags: { skip_container_guards: flags?.skip_container_guards ?? false },
    // Work on this machine with no sandbox: a write to a path built as it runs asks (the Core judges the same).
    ...(!remote && t.sandbox?.state === 'unsandboxed' ? { unsandboxed: true } : {}),
  };
  return {
    ctx,
    assumed:
      `target ${t.name}#${t.generation} (${t.backend}): mode ${mode}, ` +
      `skip_container_guards ${ctx.flags!.skip_container_guards}${remote ? ', home unknown (~)' : ''}` +
      (ctx.unsandboxed ? ', unsandboxed' : ''),
  };
}

/**
 * What the policy judges: the text as a shell command, or — with --tool — what that tool's declaration says a call
 * with these JSON arguments would run or write (the same hook the dispatcher asks).
 */
function callFor(tool: string | undefined, text: string): PolicyCall | undefined {
  if (tool === undefined) return { kind: 'command', command: text };
  const def = toolDefs.find((d) => d.name === tool);
  if (!def)
    throw new SwitchboardError(
      'bad_request',
      `unknown tool "${tool}"`,
      `tools: ${toolDefs.map((d) => d.name).join(', ')}`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new SwitchboardError(
      'bad_request',
      `with --tool, give ${tool}'s arguments as JSON`,
      `for example: switchboard approvals check --tool write_file '{"path":"~/.bashrc","content":""}'`,
    );
  }
  const args = def.args.safeParse(raw);
  if (!args.success) throw new SwitchboardError('bad_request', `${tool}: ${formatZodError(args.error)}`);
  const subject = def.approval(args.data);
  return subject && { ...subject, via: def.name };
}

export function approvalsCheckCommand(approvals: Command): void {
  approvals
    .command('check')
    .description('say whether a command would be refused, asked about or allowed, and why (runs nothing)')
    .argument('<subject>', "the command (or, with --tool, that tool's arguments as JSON)")
    .option('--execution-target <name>', "judge with this target's flags and cwd")
    .option(
      '--tool <tool>',
      'judge a call of this tool (write_file, patch, execute_code, …) with the JSON arguments given',
    )
    .option('--json', 'one JSON document')
    .action(
      action(async (subject: string, opts: { executionTarget?: string; tool?: string; json?: boolean }) => {
        const call = callFor(opts.tool, subject);
        const { ctx, assumed } = await contextFor(opts.executionTarget);
        // The shell parser (tree-sitter) loads only here, so the other `approvals` subcommands stay small.
        const policy = await (await import('../../core/approvals/policy/commandPolicy.js')).loadCommandPolicy({
          profile: resolve(switchboardHome()),
        });
        const judged = call
          ? policy.classify(call, ctx)
          : { verdict: 'safe' as const, reasons: [], decision: 'allow' as const };
        // Output never holds a secret (a reason may quote the command); the spans index the subject as it was given.
        const r = { ...judged, reasons: judged.reasons.map((reason) => ({ ...reason, text: redact(reason.text) })) };
        if (opts.json) {
          return printJson({
            ...(opts.tool ? { tool: opts.tool } : {}),
            subject: redact(subject),
            ...(opts.executionTarget ? { execution_target: opts.executionTarget } : {}),
            assumed,
            ...r,
            ...(call?.kind === 'command' ? { pattern: redact(policy.commandPattern(call.command)) } : {}),
          });
        }
        const outcome = r.decision === 'refuse' ? 'would be refused' : r.decision === 'ask' ? 'would ask' : 'would run';
        const lines = [`${r.verdict}: ${outcome} (${assumed})`];
        for (const reason of r.reasons) {
          const span = reason.span ? `  [${reason.span[0]}-${reason.span[1]}]` : '';
          lines.push(`  ${reason.severity === 'hardline' ? '!!' : '? '} ${reason.text}${span}`);
        }
        process.stdout.write(lines.join('\n') + '\n');
      }),
    );
}
