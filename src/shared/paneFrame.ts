// Pane output as a binary WebSocket frame: the one definition of its layout, with its encoder and validating decoder.
import { SwitchboardError } from './errors.js';

/**
 * A `pane.data` event sent as one binary frame to a connection that opened, attached or resumed the pane with
 * `binary: true` (JSON `pane.data` events carry the same output to every other client):
 *
 * | bytes      | what                                                                          |
 * |------------|-------------------------------------------------------------------------------|
 * | 0          | kind: 1 (`pane.data`); other kinds are reserved                               |
 * | 1          | n, the length of the pane id (1–64)                                           |
 * | 2 … 2+n    | the pane id, ASCII                                                            |
 * | 2+n … 6+n  | chars: the output's length in UTF-16 code units, uint32 big-endian — what `pane.ack` counts |
 * | 6+n …      | the output, UTF-8 (always whole characters: the Core cuts batches between them) |
 *
 * Why binary: a flood's cost was JSON, not the pty — escaping each 64 KB batch into a JSON string on the Core and
 * parsing it again in the page. A frame is the UTF-8 bytes as the pty wrote them (the Core does not decode them), and
 * xterm.js writes bytes directly.
 */
export const PANE_FRAME_DATA = 1;
export const MAX_PANE_ID_BYTES = 64;
const FIXED_BYTES = 6;

export interface PaneDataFrame {
  pane_id: string;
  /** UTF-8 output, a view into the frame. */
  data: Uint8Array;
  /** The output's length in UTF-16 code units, as the JSON event's `data.length`: what the window acknowledges. */
  chars: number;
}

const encoder = new TextEncoder();
const asciiId = /^[\x21-\x7e]{1,64}$/;

/** How many bytes come before the output in a frame of `paneId`: a batch read into a frame starts there. */
export function paneFrameHeaderBytes(paneId: string): number {
  if (!asciiId.test(paneId))
    throw new SwitchboardError('internal', `pane id ${JSON.stringify(paneId.slice(0, 80))} cannot be framed`);
  return FIXED_BYTES + paneId.length;
}

/**
 * Writes the header of `paneId`'s frame, saying its output is `chars` long, into the start of `frame`, whose output
 * already follows it (from byte `paneFrameHeaderBytes(paneId)` to the end): the Core reads a batch into its frame.
 */
export function writePaneFrameHeader(frame: Uint8Array, paneId: string, chars: number): void {
  const head = paneFrameHeaderBytes(paneId);
  if (frame.length < head)
    throw new SwitchboardError('internal', `a frame of ${frame.length} bytes has no room for its header`);
  frame[0] = PANE_FRAME_DATA;
  frame[1] = paneId.length;
  for (let i = 0; i < paneId.length; i++) frame[2 + i] = paneId.charCodeAt(i);
  new DataView(frame.buffer, frame.byteOffset, head).setUint32(2 + paneId.length, chars);
}

/**
 * The frame for one batch of a pane's output: text, or its UTF-8 bytes with their length in chars (`chars`, which
 * the caller knows without decoding them).
 */
export function encodePaneData(paneId: string, data: string): Uint8Array;
export function encodePaneData(paneId: string, data: Uint8Array, chars: number): Uint8Array;
export function encodePaneData(paneId: string, data: string | Uint8Array, chars?: number): Uint8Array {
  const head = paneFrameHeaderBytes(paneId);
  const body = typeof data === 'string' ? encoder.encode(data) : data;
  const frame = new Uint8Array(head + body.length);
  frame.set(body, head);
  writePaneFrameHeader(frame, paneId, typeof data === 'string' ? data.length : (chars ?? body.length));
  return frame;
}

/** Reads a frame; anything that does not follow the layout is one `bad_request` error (the caller drops the frame). */
export function decodePaneFrame(frame: Uint8Array): PaneDataFrame {
  const bad = (why: string): SwitchboardError =>
    new SwitchboardError(
      'bad_request',
      `malformed pane frame (${frame.length} bytes): ${why}`,
      'the frame was dropped',
    );
  if (frame.length < FIXED_BYTES + 1) throw bad('shorter than its header');
  if (frame[0] !== PANE_FRAME_DATA) throw bad(`unknown kind ${frame[0]}`);
  const n = frame[1]!;
  if (n < 1 || n > MAX_PANE_ID_BYTES) throw bad(`pane id length ${n}`);
  if (frame.length < FIXED_BYTES + n) throw bad('shorter than its header');
  let paneId = '';
  for (let i = 0; i < n; i++) {
    const c = frame[2 + i]!;
    if (c < 0x21 || c > 0x7e) throw bad('the pane id is not printable ASCII');
    paneId += String.fromCharCode(c);
  }
  const chars = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint32(2 + n);
  const data = frame.subarray(FIXED_BYTES + n);
  // UTF-8 takes 1–3 bytes per UTF-16 code unit (4 for a surrogate pair, 2 units): anything outside says the count is
  // wrong.
  if (chars > data.length || data.length > chars * 3)
    throw bad(`${chars} chars cannot be ${data.length} bytes of UTF-8`);
  return { pane_id: paneId, data, chars };
}
