// P13: a call that prints 20 MB, through MCP HTTP: its time to a result with an output_id, and the time to read the
// whole output back with read_output (4 MiB slices), each the median of repeated runs, against `bash -c cat` of the
// same file read whole by this process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pct } from './harness.mjs';

const SIZE = 20_000_000;
const SLICE = 4 * 1024 * 1024;

/** 20 MB of lines, some of them with multi-byte chars (a slice must not split one). */
function content() {
  const lines = [];
  for (let i = 0, size = 0; size < SIZE; i++) {
    const line = `${String(i).padStart(8, '0')} ${i % 10 === 0 ? 'é€ ' : ''}${'x'.repeat(i % 60)}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return lines.join('');
}

const result = (r) => JSON.parse(r.content[0].text);

/** The rows, measured with `http` (an SDK client connected to /mcp) on the target named `target`. */
export async function pagedOutputRows(http, { runs, target = 'local' }) {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-out-'));
  const file = join(dir, 'big.txt');
  const text = content();
  writeFileSync(file, text);
  const toId = [];
  const readBack = [];
  const base = [];
  try {
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      const direct = spawnSync('bash', ['-c', `cat ${file}`], { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
      base.push(performance.now() - t);
      if (direct.stdout.length !== text.length) throw new Error('bash -c cat read short');

      t = performance.now();
      const cut = result(
        await http.callTool({ name: 'terminal', arguments: { command: `cat ${file}`, execution_target: target } }),
      );
      toId.push(performance.now() - t);
      if (!cut.output_id) throw new Error(`no output_id: ${JSON.stringify(cut).slice(0, 200)}`);

      t = performance.now();
      let back = '';
      for (let offset = 0; offset !== undefined; ) {
        const slice = result(
          await http.callTool({ name: 'read_output', arguments: { output_id: cut.output_id, offset, limit: SLICE } }),
        );
        back += slice.output;
        offset = slice.next_offset;
      }
      readBack.push(performance.now() - t);
      if (back !== text) throw new Error('read_output did not give the output back whole');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const ms = (x) => `${x.toFixed(0)} ms`;
  const b = pct(base, 50);
  const baseline = `bash -c cat, read whole: ${ms(b)}`;
  return [
    [
      'P13',
      `20 MB call → result with output_id (MCP HTTP, median of ${runs})`,
      ms(pct(toId, 50)),
      baseline,
      `${(pct(toId, 50) / b).toFixed(2)}×`,
    ],
    [
      'P13',
      `read_output: the 20 MB back whole, ${Math.ceil(text.length / SLICE)} slices of 4 MiB`,
      ms(pct(readBack, 50)),
      baseline,
      `${(pct(readBack, 50) / b).toFixed(2)}×`,
    ],
  ];
}
