// `switchboard open`: the window as a person — a new person link from the running Core, opened in the browser or shown
// on this terminal.
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { SwitchboardError } from '../../../shared/errors.js';
import { personLinkUrl, readCoreFile } from '../../transport/coreFile.js';
import { switchboardHome } from '../../core/platform/index.js';
import { withCore } from '../connect.js';
import { action } from '../output.js';
import { personLinkText, writeToTerminal } from '../personTerminal.js';

/** The program that opens a URL in the person's browser here, when there is a desktop to open it on. */
function browserOpener(): string | undefined {
  if (process.platform === 'darwin') return 'open';
  if (process.platform === 'linux' && (process.env.DISPLAY || process.env.WAYLAND_DISPLAY)) return 'xdg-open';
  return undefined;
}

export function openCommand(program: Command): void {
  program
    .command('open')
    .description(
      'open the window as a person: a new link to the served page, opened in your browser or shown on this terminal',
    )
    .option('--no-browser', 'show the link on this terminal instead of opening a browser')
    .action(
      action(async (opts: { browser: boolean }) => {
        const info = readCoreFile(switchboardHome());
        // The Core hands a link only to a person: this process must be at a terminal of its own, outside any sandbox.
        const { code } = await withCore((c) => c.call('window.link', {}));
        const link = personLinkUrl(info.url, info.token, code);
        const opener = opts.browser ? browserOpener() : undefined;
        if (opener) {
          spawn(opener, [link], { detached: true, stdio: 'ignore' })
            .on('error', () => undefined)
            .unref();
          process.stderr.write('switchboard: opened the window in your browser\n');
          return;
        }
        if (!writeToTerminal(personLinkText(link))) {
          throw new SwitchboardError(
            'not_permitted',
            'no terminal to show the link on',
            'run `switchboard open` in a terminal of your own',
          );
        }
      }),
    );
}
