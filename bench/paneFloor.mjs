// P1's reference row, not Switchboard: what a second process costs when it does nothing else. A plain process reads an
// interactive shell with node-pty (bytes, no decoding) and sends the reads on, in batches of up to 64 KB, over loopback
// TCP; the bench reads them into one buffer. No framing, no acknowledgements, no replay buffer: on this machine's
// cores, what a pane's path pays for its second process and socket alone.
import net from 'node:net';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { markerSeen } from './harness.mjs';

const BATCH_BYTES = 64 * 1024 - 128;

/** The reading process: one connection, which must open with the token; what it sends after is typed into the shell. */
async function serveShell(token) {
  const { default: nodePty } = await import('node-pty');
  const shell = nodePty.spawn(process.env.SHELL ?? '/bin/bash', [], {
    cols: 120,
    rows: 40,
    cwd: '/tmp',
    env: process.env,
    encoding: null,
  });
  const server = net.createServer((socket) => {
    server.close();
    socket.setNoDelay(true);
    let authed = false;
    let head = '';
    const batch = Buffer.allocUnsafe(BATCH_BYTES);
    let used = 0;
    let timer;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (used > 0) socket.write(Buffer.from(batch.subarray(0, used)));
      used = 0;
    };
    shell.onData((read) => {
      if (!authed) return;
      if (used + read.length > BATCH_BYTES) flush();
      read.copy(batch, used);
      used += read.length;
      if (used >= BATCH_BYTES) flush();
      else timer ??= setTimeout(flush, 5);
    });
    socket.on('data', (d) => {
      if (authed) return shell.write(d.toString());
      head += d.toString();
      if (head.length < token.length) return;
      if (!head.startsWith(token)) return socket.destroy();
      authed = true;
      if (head.length > token.length) shell.write(head.slice(token.length));
    });
    socket.on('close', () => (shell.kill(), process.exit(0)));
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
}

/** Starts the reading process; `run(marker, command)` types a command and resolves once `marker` came back. */
export async function startPaneFloor() {
  const token = randomBytes(16).toString('hex');
  const child = fork(fileURLToPath(import.meta.url), ['serve'], { env: { ...process.env, PANE_FLOOR_TOKEN: token } });
  const port = await new Promise(
    (resolve, reject) => (
      child.once('message', resolve), child.once('exit', (c) => reject(new Error(`pane floor exited ${c}`)))
    ),
  );
  const readBuf = Buffer.allocUnsafe(256 * 1024);
  let listener = () => undefined;
  const socket = net.connect({
    host: '127.0.0.1',
    port,
    onread: { buffer: readBuf, callback: (n) => listener(readBuf.subarray(0, n)) },
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.setNoDelay(true);
  socket.write(token);
  const run = (marker, command) =>
    new Promise((resolve) => {
      const seen = markerSeen(marker);
      listener = (chunk) => {
        if (seen(chunk)) (listener = () => undefined), resolve();
      };
      socket.write(`${command}\r`);
    });
  return { run, close: () => socket.end() };
}

if (process.argv[2] === 'serve' && process.env.PANE_FLOOR_TOKEN) await serveShell(process.env.PANE_FLOOR_TOKEN);
