// The head of an own-shell command's output: the group-id line groupCommand prints first, then the command's output.

import { takeGroupLine } from './remoteCommand.js';

/**
 * Reads a command's stdout as it arrives: holds it back until the group line is whole (or is certainly not there),
 * tells `onGroup` the group it names, and hands back the rest as the command's own output.
 */
export class GroupHead {
  /** The command's process group, once its line came (undefined when the line said none or never came). */
  pgid: number | undefined;
  private held = '';
  private read: boolean;

  /** Without a marker (a command not started by groupCommand) everything is output from the start. */
  constructor(
    private readonly marker: string | undefined,
    private readonly onGroup: (pgid: number) => void = () => undefined,
  ) {
    this.read = marker === undefined;
  }

  /** The part of `text` that is the command's output; '' while the group line is still incomplete. */
  take(text: string): string {
    if (this.read || this.marker === undefined) return text;
    this.held += text;
    const got = takeGroupLine(this.held, this.marker);
    if (!got) return '';
    this.read = true;
    this.held = '';
    this.pgid = got.pgid;
    if (got.pgid !== undefined) this.onGroup(got.pgid);
    return got.rest;
  }

  /** What is held back waiting for the group line, given up as output (the call no longer waits for it). */
  release(): string {
    const held = this.held;
    this.held = '';
    return held;
  }
}
