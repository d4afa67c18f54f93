// Pane output kept as the pty's UTF-8 bytes: where a batch may end, its length in chars, its text when a client needs
// one.
import { isAscii } from 'node:buffer';
import { paneFrameHeaderBytes, writePaneFrameHeader } from '../../../shared/paneFrame.js';

/**
 * How many bytes at the end of `bytes` start a character that is not complete yet (0–3). A batch ends before them,
 * so every batch holds whole characters (a JSON client decodes each batch on its own).
 */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    if (b < 0xc0) return 0; // ASCII (or a stray byte): nothing is waiting
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return need > back ? back : 0;
  }
  return 0;
}

/** A batch's text, decoded once for every JSON client (and for counting its chars) however many read it. */
const texts = new WeakMap<Uint8Array, string>();

export function paneText(bytes: Uint8Array): string {
  let text = texts.get(bytes);
  if (text === undefined)
    texts.set(bytes, (text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')));
  return text;
}

/**
 * The batch's length in UTF-16 code units, what `pane.ack` counts: its byte length when it is ASCII (a flood's usual
 * case).
 */
export function paneChars(bytes: Uint8Array): number {
  return isAscii(bytes) ? bytes.length : paneText(bytes).length;
}

/** Batches read into their binary frame: the frame, found from the batch when a binary window is sent it. */
const frames = new WeakMap<Uint8Array, Uint8Array>();

/**
 * Finishes a frame of `paneId`'s output (header room, then whole characters): writes its header and returns the
 * batch in it, the bytes every client is sent, with their length in chars.
 */
export function sealPaneFrame(
  paneId: string,
  frame: Buffer<ArrayBuffer>,
): { batch: Buffer<ArrayBuffer>; chars: number } {
  const batch = frame.subarray(paneFrameHeaderBytes(paneId));
  const chars = paneChars(batch);
  writePaneFrameHeader(frame, paneId, chars);
  frames.set(batch, frame);
  return { batch, chars };
}

/** The frame a batch was read into, if it was (batches from elsewhere are framed by a copy). */
export function paneFrameOf(batch: Uint8Array): Uint8Array | undefined {
  return frames.get(batch);
}

const ESC = 0x1b;
const OSC_INTRO = Buffer.from('\x1b]');
const ST = Buffer.from('\x1b\\');
const OSC_START = Buffer.from('\x1b]7;');
const NONE = Buffer.alloc(0);
/** An OSC 7 sequence longer than this is not a cwd worth following. */
const OSC_MAX = 512;

/**
 * The start of an OSC sequence left open at the end of `chunk` (to scan again with the next chunk), or nothing. Most
 * output either has no OSC near its end or ends the one it starts, so nothing is kept and nothing is decoded.
 * A copy: the chunk's memory may hold other output by the time the next chunk comes.
 */
export function openOscTail(chunk: Buffer): Buffer {
  const start = chunk.lastIndexOf(OSC_INTRO);
  if (start >= 0 && start >= chunk.length - OSC_MAX) {
    const body = chunk.subarray(start + 2);
    if (body.indexOf(0x07) < 0 && body.indexOf(ST) < 0) return Buffer.from(chunk.subarray(start));
  }
  // A lone ESC at the very end may be the start of one.
  return chunk[chunk.length - 1] === ESC ? Buffer.from([ESC]) : NONE;
}

/** The text to look for an OSC 7 in: the open tail of the last chunk and this one, or undefined when there is none. */
export function oscScanText(tail: Buffer, chunk: Buffer): string | undefined {
  if (tail.length === 0 && chunk.indexOf(OSC_START) < 0) return undefined;
  return (tail.length ? Buffer.concat([tail, chunk]) : chunk).toString('utf8');
}
