// Splits the Engine's multiplexed attach stream (8-byte frame headers, Tty false) into stdout/stderr payloads.

export type StreamKind = 'stdin' | 'stdout' | 'stderr';

const kinds: Record<number, StreamKind> = { 0: 'stdin', 1: 'stdout', 2: 'stderr' };

/**
 * Feed it raw chunks in any split; it calls `emit` once per complete frame payload.
 * A header that is not a frame header (a stream that is not multiplexed after all) turns it into
 * a pass-through, so bytes are never lost.
 */
export class FrameDemuxer {
  private pending: Buffer = Buffer.alloc(0);
  private raw = false;

  constructor(private readonly emit: (kind: StreamKind, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    if (this.raw) {
      this.emit('stdout', chunk);
      return;
    }
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= 8) {
      const kind = kinds[this.pending[0] ?? 255];
      if (!kind || this.pending[1] !== 0 || this.pending[2] !== 0 || this.pending[3] !== 0) {
        this.raw = true;
        const rest = this.pending;
        this.pending = Buffer.alloc(0);
        this.emit('stdout', rest);
        return;
      }
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + size) return;
      const payload = this.pending.subarray(8, 8 + size);
      this.pending = this.pending.subarray(8 + size);
      if (size > 0) this.emit(kind, payload);
    }
  }

  /** Bytes of an unfinished frame left when the stream ended (normally zero). */
  get leftover(): number {
    return this.pending.length;
  }
}
