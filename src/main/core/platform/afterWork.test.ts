// The idle collection after a burst of calls: it gives the grown young generation back, and the process goes on
// answering afterwards (a session closed inside its own callback once hung the event loop).
import { createServer } from 'node:http';
import { getHeapSpaceStatistics } from 'node:v8';
import { expect, it } from 'vitest';
import { IDLE_AFTER_WORK_MS, afterWork } from './afterLargeRequest.js';

const young = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

it('after a burst, the idle process shrinks its young generation and still answers requests', async () => {
  // A burst of short-lived objects, as a run of calls leaves: V8 grows its young generation for it.
  let keep: object[] = [];
  for (let i = 0; i < 3_000_000; i++) {
    keep.push({ i, s: `x${i}` });
    if (keep.length > 20_000) keep = [];
  }
  keep = [];
  const grown = young();
  expect(grown).toBeGreaterThan(4 * 1024 * 1024);
  afterWork();
  await new Promise((r) => setTimeout(r, IDLE_AFTER_WORK_MS + 1000));
  expect(young()).toBeLessThan(grown);
  const server = createServer((_req, res) => res.end('still here'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('still here');
  server.close();
}, 20_000);
