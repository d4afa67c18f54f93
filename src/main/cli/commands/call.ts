// `switchboard call TOOL 'JSON'`: one tool call through the running Core.
import type { Command } from 'commander';
import type { ProgressNote } from '../../../shared/api.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { toolNames } from '../../../shared/toolResult.js';
import { withCore } from '../connect.js';
import { action, printJson } from '../output.js';

export function callCommand(program: Command): void {
  program
    .command('call')
    .description('send one tool call to the running Core')
    // The names the ToolDefs are declared under (toolDefs.test.ts holds core/tools/toolDefs.ts to this list).
    .argument('<tool>', toolNames.join(', '))
    .argument('[args]', 'the arguments as a JSON object', '{}')
    .option('--json', 'print the whole result as JSON')
    .action(
      action(async (tool: string, argsText: string, opts: { json?: boolean }) => {
        let args: unknown;
        try {
          args = JSON.parse(argsText);
        } catch (err) {
          throw new SwitchboardError('bad_request', `the arguments are not valid JSON: ${(err as Error).message}`);
        }
        if (typeof args !== 'object' || args === null || Array.isArray(args))
          throw new SwitchboardError('bad_request', 'the arguments must be a JSON object');
        // Ctrl+C (or a TERM/HUP from a supervisor) withdraws the call: the Core kills the command's process group and
        // answers `cancelled`, which exits 130 like an interrupted shell command.
        const abort = new AbortController();
        const onSignal = (): void => abort.abort();
        for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, onSignal);
        // At a terminal, a call that waits for a person or runs long says so on one line of stderr, redrawn in place.
        const live = process.stderr.isTTY === true;
        let shown = false;
        const onProgress = (note: ProgressNote): void => {
          shown = true;
          process.stderr.write(`\r\x1b[K${note.message}`);
        };
        const result = await withCore((c) =>
          c.call(
            'tool.call',
            { tool, args: args as Record<string, unknown>, client: 'cli', ...(live ? { progress: true } : {}) },
            { signal: abort.signal, ...(live ? { onProgress } : {}) },
          ),
        ).finally(() => {
          if (shown) process.stderr.write('\r\x1b[K');
        });
        if (opts.json) return printJson(result);
        if (typeof result.output === 'string') {
          process.stdout.write(
            result.output.endsWith('\n') || result.output === '' ? result.output : result.output + '\n',
          );
          if (typeof result.exit_code === 'number' && result.exit_code !== 0) process.exitCode = result.exit_code;
          return;
        }
        if (typeof result.content === 'string') {
          process.stdout.write(result.content);
          return;
        }
        printJson(result);
      }),
    );
}
