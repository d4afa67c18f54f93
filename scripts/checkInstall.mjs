#!/usr/bin/env node
// `npm install`'s last step: says plainly when node-pty (the terminals' pty) could not be built, and what to install.
// node-pty 1.1.0 ships binaries for macOS and Windows only; on Linux `npm install` compiles it, which needs python3,
// make, a C++ compiler and Node's headers. It is an optional dependency so that a machine without them gets this
// message, with the one command for its system (README, Set up), instead of a compiler's log in the middle of
// `npm install`; the install still fails.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** The command that installs a compiler and its tools on this system, from /etc/os-release's ID and ID_LIKE. */
export function installCommand(platform, osRelease) {
  if (platform === 'darwin') return 'xcode-select --install';
  if (platform === 'win32')
    return (
      'winget install Microsoft.VisualStudio.2022.BuildTools (then add "Desktop development with C++" in its ' +
      'installer)'
    );
  const ids = `${/^ID=(.*)$/m.exec(osRelease)?.[1] ?? ''} ${/^ID_LIKE=(.*)$/m.exec(osRelease)?.[1] ?? ''}`
    .replace(/"/g, '')
    .split(/\s+/);
  if (ids.some((id) => ['debian', 'ubuntu'].includes(id))) return 'sudo apt-get install -y python3 make g++';
  if (ids.some((id) => ['fedora', 'rhel', 'centos'].includes(id))) return 'sudo dnf install -y python3 make gcc-c++';
  if (ids.some((id) => ['arch'].includes(id))) return 'sudo pacman -S --needed python make gcc';
  if (ids.some((id) => ['alpine'].includes(id))) return 'sudo apk add python3 make g++ linux-headers';
  if (ids.some((id) => ['suse', 'opensuse'].includes(id))) return 'sudo zypper install -y python3 make gcc-c++';
  return undefined;
}

function osRelease() {
  try {
    return readFileSync('/etc/os-release', 'utf8');
  } catch {
    // not Linux, or a system without the file: the README's list applies
    return '';
  }
}

/** Loads node-pty; when it cannot, says why and what to install, and fails the install. */
function check() {
  try {
    require('node-pty');
    return;
  } catch (err) {
    explain(err);
  }
}

function explain(err) {
  const cmd = installCommand(process.platform, osRelease());
  const line = '─'.repeat(76);
  process.stderr.write(
    [
      '',
      line,
      "switchboard: node-pty, the terminals' pty, could not be built or loaded:",
      `  ${String(err?.message ?? err).split('\n')[0]}`,
      '',
      "On Linux `npm install` compiles it: it needs python3, make and a C++ compiler, and Node's headers",
      '(node-gyp fetches those for your Node from nodejs.org).',
      cmd
        ? `Install them with:\n\n  ${cmd}\n`
        : 'Install python3, make and a C++ compiler with your package manager.\n',
      'then run `npm install` again. The README\'s "Set up" section has the command for each system, and what to',
      'do without access to nodejs.org.',
      line,
      '',
    ].join('\n'),
  );
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) check();
