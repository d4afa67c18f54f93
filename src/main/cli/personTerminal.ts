// Handing a person link to the person: on the terminal of the process (never stdout, which scripts and logs keep), or
// on a file descriptor the program that started it passed (`serve --link-fd N`).
import { closeSync, openSync, writeSync } from 'node:fs';
import { CODE_TTL_MS } from '../core/person/index.js';

/** What a person reads above their link: whose it is, what it does, and that it works once, soon. */
export function personLinkText(link: string): string {
  return (
    `Open Switchboard (this link is yours alone: it makes its page your window; it works once, ` +
    `within ${CODE_TTL_MS / 60_000} minutes, and \`switchboard open\` gives a new one):\n  ${link}\n`
  );
}

/** Write `text` to this process's controlling terminal; false when it has none. */
export function writeToTerminal(text: string): boolean {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'w');
  } catch {
    // No controlling terminal (started by a service, a test, a tool call): the caller says what to do instead.
    return false;
  }
  try {
    writeSync(fd, text);
    return true;
  } catch {
    // the terminal cannot be written: the caller says so its own way
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Write `text` to descriptor `fd` and close it; a clear error when the descriptor is not open for writing. */
export function writeToDescriptor(fd: number, text: string): void {
  try {
    writeSync(fd, text);
  } finally {
    try {
      closeSync(fd);
    } catch {
      /* already closed by the write's failure */
    }
  }
}
