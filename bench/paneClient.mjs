// A WebSocket client of the Core for P1 that costs what a reader must: frames parsed where the socket read them.
//
// Why not the `ws` library here: a Node client built on it pays, for every socket read, a fresh 64 KB buffer and a copy
// of what was read (Node's net), then its own frame handling; measured with perf during a 20 MB flood, that was ~5 ms
// of CPU per MB, as much as the Core's whole path, taken from the 2 cores the pty's writer and the Core share. A window
// does not pay it (Chromium reads the socket in its network service). This client reads into one buffer kept for the
// socket's life (`onread`), each read landing after the bytes not parsed yet, and hands each binary frame to the
// listeners as a view into it: a listener that keeps bytes copies them. A frame cut by the end of a read is not copied
// out: it waits where it is for the read that completes it. It speaks the protocol the Core serves (RFC 6455 without
// extensions): masked frames out, pings answered.
import net from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { paneFrameEvent } from './harness.mjs';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const BUFFER_BYTES = 1024 * 1024;
/**
 * A read gets at least this much room: below it, the bytes not parsed yet (part of one frame, at most 256 KiB for pane
 * output) move to the buffer's start, about once per 800 KB read, rather than a copy of every frame a read cut.
 */
const MIN_ROOM = 128 * 1024;

/**
 * Same shape as harness.mjs `connect`: `call(method, params)`, `notify(message)`, `listeners` for events, `close()`.
 */
export async function connectPaneClient(url) {
  const { hostname, port, host } = new URL(url.http);
  const buf = Buffer.allocUnsafe(BUFFER_BYTES);
  /** What was read and not parsed yet: buf[start, end). The next read lands at `end`. */
  let start = 0;
  let end = 0;
  let upgraded = false;
  let onOpen;
  let onFail;
  const listeners = new Set();
  const pending = new Map();
  let nextId = 1;
  let closing = false;

  const fail = (err) => {
    if (closing) return;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    onFail?.(err);
    socket.destroy();
  };

  const key = randomBytes(16).toString('base64');
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  /** The handshake's reply, up to its blank line; what follows is the first frames. */
  const handshake = (bytes) => {
    const end = bytes.indexOf('\r\n\r\n');
    if (end < 0) return -1;
    const head = bytes.toString('latin1', 0, end);
    const lines = head.split('\r\n');
    const accepted = lines.some(
      (l) => /^sec-websocket-accept:/i.test(l) && l.slice(l.indexOf(':') + 1).trim() === accept,
    );
    if (!/^HTTP\/1\.1 101 /.test(lines[0]) || !accepted) {
      fail(new Error(`WebSocket upgrade refused: ${lines[0]}`));
      return -1;
    }
    upgraded = true;
    onOpen();
    return end + 4;
  };

  const onFrame = (opcode, payload) => {
    if (opcode === 2) {
      let m;
      try {
        m = paneFrameEvent(payload);
      } catch (err) {
        return fail(err);
      }
      for (const l of listeners) l(m);
    } else if (opcode === 1) {
      const m = JSON.parse(payload.toString('utf8'));
      if (m.type === 'result') {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (p) m.ok ? p.resolve(m.result) : p.reject(new Error(m.error.message));
      } else for (const l of listeners) l(m);
    } else if (opcode === 9) send(0xa, payload);
    else if (opcode === 8) socket.end();
    else if (opcode !== 0xa) fail(new Error(`unexpected WebSocket opcode ${opcode}`));
  };

  /** A frame's whole length (header and payload) once its header is all there, else -1. */
  const frameLength = (bytes, at) => {
    if (bytes.length - at < 2) return -1;
    const len = bytes[at + 1] & 0x7f;
    if (len < 126) return 2 + len;
    if (len === 126) return bytes.length - at < 4 ? -1 : 4 + bytes.readUInt16BE(at + 2);
    return bytes.length - at < 10 ? -1 : 10 + Number(bytes.readBigUInt64BE(at + 2));
  };

  /** Whole frames from `bytes`; returns where the first incomplete one starts. */
  const frames = (bytes) => {
    let at = 0;
    for (;;) {
      const whole = frameLength(bytes, at);
      if (whole < 0 || bytes.length - at < whole) return at;
      const b0 = bytes[at];
      if ((b0 & 0x80) === 0 || (bytes[at + 1] & 0x80) !== 0) {
        fail(new Error('fragmented or masked frame from the Core'));
        return bytes.length;
      }
      const code = bytes[at + 1] & 0x7f;
      const head = code < 126 ? 2 : code === 126 ? 4 : 10;
      onFrame(b0 & 0x0f, bytes.subarray(at + head, at + whole));
      at += whole;
    }
  };
  /** A frame too large to wait in the buffer (not pane output): copied into one of its size as its bytes come. */
  let big = null;
  let bigUsed = 0;

  const onRead = (nread) => {
    end += nread;
    if (big) {
      const n = Math.min(big.length - bigUsed, end - start);
      buf.copy(big, bigUsed, start, start + n);
      bigUsed += n;
      start += n;
      if (bigUsed < big.length) return void (start = end = 0);
      const whole = big;
      big = null;
      frames(whole);
    }
    if (!upgraded) {
      const at = handshake(buf.subarray(start, end));
      if (at < 0) return;
      start += at;
    }
    start += frames(buf.subarray(start, end));
    if (start === end) return void (start = end = 0);
    const whole = frameLength(buf.subarray(start, end), 0);
    if (whole <= BUFFER_BYTES - MIN_ROOM) return;
    big = Buffer.allocUnsafe(whole);
    bigUsed = buf.copy(big, 0, start, end);
    start = end = 0;
  };
  /** Where the next read goes: after what is not parsed yet, moved to the start first when room is short. */
  const nextRead = () => {
    if (BUFFER_BYTES - end < MIN_ROOM) {
      buf.copy(buf, 0, start, end);
      end -= start;
      start = 0;
    }
    return buf.subarray(end);
  };

  const socket = net.connect({ host: hostname, port: Number(port), onread: { buffer: nextRead, callback: onRead } });
  socket.setNoDelay(true);
  socket.on('error', (err) => fail(err));
  socket.on('close', () => fail(new Error('connection closed')));

  /** One masked frame (a client must mask), header and payload in one write. */
  const send = (opcode, payload) => {
    const n = payload.length;
    const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
    const frame = Buffer.allocUnsafe(head + 4 + n);
    frame[0] = 0x80 | opcode;
    if (head === 2) frame[1] = 0x80 | n;
    else if (head === 4) (frame[1] = 0x80 | 126), frame.writeUInt16BE(n, 2);
    else (frame[1] = 0x80 | 127), frame.writeBigUInt64BE(BigInt(n), 2);
    const mask = randomBytes(4);
    mask.copy(frame, head);
    for (let i = 0; i < n; i++) frame[head + 4 + i] = payload[i] ^ mask[i & 3];
    socket.write(frame);
  };

  await new Promise((resolve, reject) => {
    onOpen = resolve;
    onFail = reject;
    socket.once('connect', () => {
      socket.write(
        `GET /ws HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: ` +
          `Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nAuthorization: ` +
          `Bearer ${url.token}\r\n\r\n`,
      );
    });
  });
  onFail = undefined;

  const call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send(1, Buffer.from(JSON.stringify({ type: 'call', id, method, params })));
    });
  // Closed by us: calls still waiting for a reply (an ack sent just before) are dropped, not failed.
  const notify = (message) => send(1, Buffer.from(JSON.stringify(message)));
  return { call, notify, listeners, close: () => ((closing = true), send(8, Buffer.alloc(0)), socket.end()) };
}
