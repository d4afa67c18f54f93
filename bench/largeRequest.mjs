// Benchmark (not a test): what one large `terminal` command (or write_file content) costs the Core's memory, over MCP
// HTTP and over the WebSocket. Each case runs on a fresh `switchboard serve`: warmed with a small call, left to settle,
// then one large command; the Core's VmRSS and VmHWM (/proc/<pid>/status, the peak reset through clear_refs) are read
// before, during and after, and the figures are the peak over the baseline and the time from the call's answer until
// the RSS is back within 10 MB of the baseline. A pending approval (a command the policy would not judge) is approved
// by the bench, as the person at the window, and the row says so. With `--tool write_file` the large argument is a
// file's content instead (written under the bench's temp profile). Usage: node bench/largeRequest.mjs [--runs N]
// [--sizes 1,10] [--via http,ws] [--tool terminal|write_file]. Needs `node scripts/build.mjs`. Goal (issue 25): a 10 MB
// command costs the Core at most +60 MB, and it is back to its baseline within 10 s.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect, startServe } from './harness.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const runs = Number(arg('--runs', '3'));
const sizes = arg('--sizes', '1,10').split(',').map(Number);
const vias = arg('--via', 'http,ws').split(',');
const tool = arg('--tool', 'terminal');
/** Within this of the baseline counts as back. */
const BACK_MB = 10;
/** How long the bench waits for the Core to come back before it says "not within". */
const WAIT_BACK_MS = 60_000;

const settle = (ms) => new Promise((r) => setTimeout(r, ms));
const status = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8');
const kb = (text, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? NaN) / 1024;
const rss = (pid) => kb(status(pid), 'VmRSS');
/** Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0), so the peak read after is this call's. */
const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

const line = 'the quick brown fox jumps over the lazy dog, then writes a line of a file through a heredoc 0123456789\n';
/** About `mb` MB of ordinary text lines. */
const text = (mb) => line.repeat(Math.ceil((mb * 1_000_000) / line.length));

/**
 * The arguments of a call of about `mb` MB as an agent writes one. A command is a heredoc piped to `wc -c`, so the
 * output is one short line and the time is the Core's, not the shell's printing.
 */
function largeArgs(mb, dir) {
  if (tool === 'write_file') return { path: `${dir}/large.txt`, content: text(mb) };
  return { command: `cat <<'SB_EOF' | wc -c\n${text(mb)}SB_EOF` };
}

/** The RSS every 10 ms until `stop()`; the largest is kept (VmHWM is the kernel's own, this is a check on it). */
function sampler(pid) {
  let max = 0;
  const t = setInterval(() => (max = Math.max(max, rss(pid))), 10);
  return () => (clearInterval(t), max);
}

/** One case on a fresh Core: returns its figures. */
async function oneCase(via, mb) {
  // Files go to a directory of their own: the profile is no agent's to write.
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-files-'));
  const served = await startServe(
    'terminal:\n  targets:\n    local: { backend: local, cwd: /tmp }\napprovals:\n  mode: ask\n  timeout: 600\n',
  );
  const pid = served.serve.pid;
  // The window's own socket: the person's secret in its URL, as the served page connects.
  const window = await connect(served.url, { person: true });
  // As the person at the window: a large command the policy does not judge asks, and is approved once.
  let asked;
  const answered = new Set();
  await window.call('events.subscribe', { events: ['approvals.changed'] });
  window.listeners.add((m) => {
    if (m.event !== 'approvals.changed') return;
    for (const p of m.payload) {
      asked ??= (p.reasons ?? []).join('; ') || 'asked';
      // Answered once: approvals.changed lists every pending request each time the list changes.
      if (answered.has(p.id)) continue;
      answered.add(p.id);
      window
        .call('approvals.decide', { id: p.id, decision: 'approve', scope: 'once' })
        .catch((err) => console.error(`approving failed: ${err.message}`));
    }
  });
  let call;
  let close;
  if (via === 'http') {
    const http = new Client({ name: 'bench', version: '1' });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url.http}mcp`), {
        requestInit: { headers: { authorization: `Bearer ${served.url.token}` } },
      }),
    );
    call = async (args) => {
      const r = await http.callTool({ name: tool, arguments: { ...args, execution_target: 'local' } }, undefined, {
        timeout: 300_000,
      });
      const text = r.content?.[0]?.text ?? '';
      if (r.isError) throw new Error(text.split('\n')[0]);
      return text;
    };
    close = () => http.close();
  } else {
    const ws = await connect(served.url);
    call = async (args) =>
      JSON.stringify(
        await ws.call('tool.call', { tool, args: { ...args, execution_target: 'local' }, client: 'test' }),
      );
    close = () => ws.close();
  }
  // Warm: the path's code compiled, the bash grammar loaded, the target's shell started; then let the heap settle.
  for (let i = 0; i < 5; i++)
    await call(
      tool === 'write_file' ? { path: `${dir}/warm.txt`, content: 'warm\n' } : { command: 'echo warm | wc -c' },
    );
  await settle(3000);
  const base = rss(pid);
  const args = largeArgs(mb, dir);
  resetPeak(pid);
  const stopSampling = sampler(pid);
  const t0 = performance.now();
  let outcome;
  try {
    const out = await call(args);
    outcome =
      tool === 'write_file'
        ? `wrote ${/"bytes_written":\s*(\d+)/.exec(out)?.[1] ?? out.slice(0, 80)} bytes`
        : `ran (wc: ${/"output":\s*"\s*(\d+)/.exec(out)?.[1] ?? out.slice(0, 80)})`;
  } catch (err) {
    outcome = `refused: ${String(err.message ?? err)
      .split('\n')[0]
      .slice(0, 140)}`;
  }
  const callMs = performance.now() - t0;
  const sampled = stopSampling();
  const peak = Math.max(kb(status(pid), 'VmHWM'), sampled);
  // Back: the first moment the RSS is within BACK_MB of the baseline, counted from the answer.
  const tAnswer = performance.now();
  let backMs;
  while (performance.now() - tAnswer < WAIT_BACK_MS) {
    if (rss(pid) - base <= BACK_MB) {
      backMs = performance.now() - tAnswer;
      break;
    }
    await settle(100);
  }
  const after = rss(pid);
  await close();
  window.close();
  await served.stop();
  rmSync(dir, { recursive: true, force: true });
  return { base, peakDelta: peak - base, callMs, backMs, after, outcome, asked };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const mb of sizes) {
  for (const via of vias) {
    const each = [];
    for (let r = 0; r < runs; r++) {
      const c = await oneCase(via, mb);
      each.push(c);
      console.error(
        `  ${mb} MB over ${via} run ${r + 1}: base ${c.base.toFixed(0)} MB, ` +
          `peak +${c.peakDelta.toFixed(0)} MB, call ${(c.callMs / 1000).toFixed(2)} s, ` +
          `back ${c.backMs === undefined ? `>${WAIT_BACK_MS / 1000} s` : `${(c.backMs / 1000).toFixed(1)} s`};` +
          ` ${c.outcome}${c.asked ? `; asked: ${c.asked}` : ''}`,
      );
    }
    const backs = each.map((c) => c.backMs ?? Infinity);
    const back = median(backs);
    rows.push([
      `${mb} MB`,
      via === 'http' ? 'MCP HTTP' : 'WebSocket',
      `+${median(each.map((c) => c.peakDelta)).toFixed(0)} MB`,
      `${(median(each.map((c) => c.callMs)) / 1000).toFixed(2)} s`,
      back === Infinity ? `not within ${WAIT_BACK_MS / 1000} s` : `${(back / 1000).toFixed(1)} s`,
      `${each[0].outcome}${each[0].asked ? ` (asked: ${each[0].asked})` : ''}`,
    ]);
  }
}
const head = [
  tool === 'write_file' ? 'content' : 'command',
  'via',
  `peak RSS over baseline`,
  'call',
  `back within ${BACK_MB} MB`,
  'outcome',
];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const row = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(`${tool}: median of ${runs} runs, each on a fresh Core`);
console.log(row(head));
for (const r of rows) console.log(row(r));
