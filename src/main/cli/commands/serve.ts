// `switchboard serve`: the headless Core and the web UI; prints its address, hands the person link to the person only.
import type { Command } from 'commander';
import { startHost } from '../../transport/host.js';
import { SwitchboardError } from '../../../shared/errors.js';
import { action, keepRunning } from '../output.js';
import { personLinkText, writeToDescriptor, writeToTerminal } from '../personTerminal.js';

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the Core headless and serve the UI to a browser on loopback')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '0')
    .option(
      '--link-fd <fd>',
      'write the person link to this open file descriptor instead of the terminal (for programs that start serve)',
    )
    .action(
      action(async (opts: { host: string; port: string; linkFd?: string }) => {
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65_535)
          throw new SwitchboardError('bad_request', `--port must be 0-65535, not "${opts.port}"`);
        const linkFd = opts.linkFd === undefined ? undefined : Number(opts.linkFd);
        if (linkFd !== undefined && (!Number.isInteger(linkFd) || linkFd < 3))
          throw new SwitchboardError(
            'bad_request',
            `--link-fd must be a descriptor number of 3 or more, not "${opts.linkFd}"`,
          );
        keepRunning();
        const host = await startHost({
          host: opts.host,
          port,
          mode: 'serve',
          onWaitForStopping: (pid) =>
            process.stderr.write(
              `switchboard: the last Core on this profile${pid ? ` (pid ${pid})` : ''} is still stopping; ` +
                'starting once it has\n',
            ),
        });
        // stdout gets the address only: the person link (token and one-time code) goes to the person alone.
        process.stdout.write(`Switchboard is serving at ${host.url}\n`);
        const link = host.personLink();
        if (linkFd !== undefined) writeToDescriptor(linkFd, `${link}\n`);
        else if (!writeToTerminal(personLinkText(link)))
          process.stdout.write(
            "switchboard: no terminal to show the window's link on; run `switchboard open` in a terminal of your own\n",
          );
        if (!['127.0.0.1', 'localhost', '::1'].includes(opts.host)) {
          process.stderr.write(
            `switchboard: warning: listening on ${opts.host}, not loopback; ` +
              `anyone who has the token can run commands\n`,
          );
        }
        let stopping = false;
        const stop = (): void => {
          if (stopping) return;
          stopping = true;
          void host.close().finally(() => process.exit(0));
        };
        // `on`, not `once`: a library's exit hook (when-exit, under conf) answers the first signal by sending it again;
        // with no listener left the second one would kill the Core before it ended what it started.
        for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
      }),
    );
}
