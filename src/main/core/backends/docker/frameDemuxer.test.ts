import { describe, expect, it } from 'vitest';
import { FrameDemuxer, type StreamKind } from './frameDemuxer.js';

function frame(kind: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const h = Buffer.alloc(8);
  h[0] = kind;
  h.writeUInt32BE(payload.length, 4);
  return Buffer.concat([h, payload]);
}

function run(chunks: Buffer[]): [StreamKind, string][] {
  const out: [StreamKind, string][] = [];
  const d = new FrameDemuxer((k, p) => out.push([k, p.toString()]));
  for (const c of chunks) d.push(c);
  return out;
}

const two = Buffer.concat([frame(1, 'out'), frame(2, 'err')]);

describe('FrameDemuxer', () => {
  it.each<[string, Buffer[], [StreamKind, string][]]>([
    ['whole frames', [two], [['stdout', 'out'], ['stderr', 'err']]],
    ['split inside a header', [two.subarray(0, 3), two.subarray(3)], [['stdout', 'out'], ['stderr', 'err']]],
    ['split inside a payload', [two.subarray(0, 9), two.subarray(9, 12), two.subarray(12)], [['stdout', 'out'], ['stderr', 'err']]],
    ['byte by byte', [...two].map((b) => Buffer.from([b])), [['stdout', 'out'], ['stderr', 'err']]],
    ['empty frame skipped', [Buffer.concat([frame(1, ''), frame(1, 'x')])], [['stdout', 'x']]],
    ['not multiplexed: passes through', [Buffer.from('plain text here'), Buffer.from(' more')], [['stdout', 'plain text here'], ['stdout', ' more']]],
  ])('%s', (_, chunks, want) => expect(run(chunks)).toEqual(want));
});
