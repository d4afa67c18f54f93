// node-pty behind the ShellChannel interface; the shell reports its cwd with OSC 7 after each prompt.
import { randomUUID } from 'node:crypto';
import { readSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createRequire } from 'node:module';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import type { ShellChannel } from '../provider.js';
import { endGroup } from '../../platform/index.js';
import { envReadingShells, osc7EnvFile } from '../shell/osc7Env.js';

/** node-pty (a native addon) loads with the first pane: a Core nobody opened a terminal in does not hold it. */
let nodePty: typeof import('node-pty') | undefined;
const loadNodePty = (): typeof import('node-pty') =>
  (nodePty ??= createRequire(import.meta.url)('node-pty') as typeof import('node-pty'));

/** Makes bash print OSC 7 (file://host/cwd) before every prompt, so pane headers follow `cd`. */
const osc7PromptCommand = 'printf "\\033]7;file://%s%s\\033\\\\" "${HOSTNAME:-localhost}" "$PWD"';

/** osc7Env.ts's file, this user's alone in the temp folder (the shell deletes it); undefined if it cannot be made. */
function osc7EnvPath(): string | undefined {
  const path = join(tmpdir(), `sb-osc7-${randomUUID()}.sh`);
  try {
    writeFileSync(path, osc7EnvFile, { mode: 0o600, flag: 'wx' });
    return path;
  } catch {
    // No temp folder to write in: the pane works, its header just does not follow cd.
    return undefined;
  }
}

/**
 * Makes the pty's reads come as Buffers. node-pty only reads bytes when spawned with `encoding: null`, and that also
 * leaves IUTF8 off (a backspace in a cooked-mode read would then erase half a character); so it is spawned for UTF-8
 * and its read stream's decoder is taken off here. False when node-pty no longer looks as expected (reads stay
 * strings).
 */
function readBytes(pty: unknown): boolean {
  const state = (pty as { _socket?: Readable & { _readableState?: { decoder: unknown; encoding: unknown } } })._socket
    ?._readableState;
  if (!state || !('decoder' in state)) return false;
  state.decoder = null;
  state.encoding = null;
  return true;
}

/** What a pty read may bring at most: node's own read size. */
const READ_BYTES = 64 * 1024;

/**
 * The kernel hands a pty's output over at most 4 KB per read (its line discipline's buffer), and libuv reads once per
 * wakeup of the event loop: a flood cost a loop turn and an `epoll_wait` per 4 KB. A read that came back at least this
 * full says more is waiting, and the next is made at once, synchronously (the fd is non-blocking: a read that finds
 * nothing, once the kernel moved in what the pty held, fails with EAGAIN). Reads of a person's typing or a prompt are
 * smaller and cost no extra call. Measured as bench/run.mjs P1 measures, a Core with it against one without (30 floods
 * a side, taking turns, three runs): 1.09×, 1.03×, 0.98× the throughput; a 20 MB flood (~5,100 reads) is read in
 * 390–570 turns instead of one per read.
 */
const DRAIN_FROM_BYTES = 2048;
/**
 * At most this much is read in one turn, as much as a pane sends in one batch (core/panes/paneBatch.ts): then the
 * loop's other work (acknowledgements, other panes, sockets) gets its turn.
 */
const DRAIN_MAX_BYTES = 256 * 1024;

/**
 * Reads the pty into one buffer kept for the pty's life (the `onread` option of net.Socket, set on node-pty's socket
 * after the fact): per read, no 64 KiB allocation, Buffer and stream event, which were most of what a flood cost the
 * Core. `listener` gets a view into that buffer, good only during the call. Pausing still stops the reads (net.Socket
 * honours it for such a socket), and the end of the pty still comes as before. False when node-pty's socket no longer
 * looks as expected; the pty is then read as a stream of Buffers.
 */
function readIntoOneBuffer(pty: unknown, listener: (data: Uint8Array) => void): boolean {
  const socket = (
    pty as { _socket?: Record<symbol, unknown> & { _handle?: { useUserBuffer?: (buf: Uint8Array) => void } } }
  )._socket;
  const handle = socket?._handle;
  if (!socket || typeof handle?.useUserBuffer !== 'function') return false;
  const symbol = (name: string): symbol | undefined =>
    Object.getOwnPropertySymbols(socket).find((s) => s.description === name);
  const kBuffer = symbol('kBuffer');
  const kBufferCb = symbol('kBufferCb');
  if (!kBuffer || !kBufferCb || socket[kBuffer] !== null) return false;
  const buf = Buffer.allocUnsafe(READ_BYTES);
  socket[kBuffer] = buf;
  // Read directly only the fd libuv reads, which it made non-blocking: a read of a blocking one would stop the Core.
  const fd = (pty as { _fd?: unknown })._fd;
  const drains = typeof fd === 'number' && (handle as { fd?: unknown }).fd === fd;
  const live = socket as unknown as { _handle: unknown; destroyed: boolean; isPaused(): boolean };
  socket[kBufferCb] = (nread: number) => {
    listener(buf.subarray(0, nread));
    if (!drains) return;
    // The listener may have paused the pane (flow control) or ended it; either stops the reads here too.
    for (let read = nread, total = nread; read >= DRAIN_FROM_BYTES && total < DRAIN_MAX_BYTES; total += read) {
      if (live.destroyed || live._handle !== handle || live.isPaused()) return;
      try {
        read = readSync(fd, buf, 0, READ_BYTES, null);
      } catch {
        // EAGAIN: nothing more yet (libuv reads it when it comes); EIO: the shell is gone, which libuv reports.
        return;
      }
      if (read > 0) listener(buf.subarray(0, read));
    }
  };
  handle.useUserBuffer(buf);
  return true;
}

export function openPty(opts: {
  cwd: string;
  cols: number;
  rows: number;
  env: NodeJS.ProcessEnv;
  shell?: string;
  args?: string[];
}): ShellChannel {
  const shell = opts.shell ?? process.env.SHELL ?? '/bin/bash';
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  env.TERM_PROGRAM = 'Switchboard';
  if (!env.PROMPT_COMMAND) env.PROMPT_COMMAND = osc7PromptCommand;
  // An interactive sh, dash or ash has no PROMPT_COMMAND: its ENV file makes its prompt say the cwd.
  // A shell given a command (-c) is not interactive, would not read it, and would leave it behind.
  if (!opts.args?.includes('-c') && !env.ENV && envReadingShells.includes(basename(shell))) {
    const file = osc7EnvPath();
    if (file) env.ENV = file;
  }
  const pty = loadNodePty().spawn(shell, opts.args ?? [], {
    name: 'xterm-256color',
    cols: opts.cols,
    rows: opts.rows,
    cwd: opts.cwd,
    env,
  });
  let exited = false;
  pty.onExit(() => (exited = true));
  return {
    onData: (l) => {
      const decoder = new StringDecoder('utf8');
      pty.onData((d: string | Buffer) => l(typeof d === 'string' ? d : decoder.write(d)));
    },
    onBytes: (l) => {
      if (readIntoOneBuffer(pty, l)) return;
      readBytes(pty);
      pty.onData((d: string | Buffer) => l(typeof d === 'string' ? Buffer.from(d) : d));
    },
    onExit: (l) => void pty.onExit(({ exitCode, signal }) => l(exitCode, signal ? `signal ${signal}` : undefined)),
    write: (data) => {
      if (!exited) pty.write(data);
    },
    resize: (cols, rows) => {
      if (!exited) pty.resize(cols, rows);
    },
    pause: () => pty.pause(),
    resume: () => pty.resume(),
    // Closing ends the shell's group gently, as a terminal's hangup would (HUP, then TERM); a shell that ignores both
    // (`trap '' HUP`, nohup) is killed after the grace. Without it the shell lived on after its pane, holding the pty.
    kill: () => {
      if (!exited) void endGroup(pty.pid);
    },
  };
}
