// TargetHealth with a fleet: at most `concurrency` looks at once, every target looked at, a target a call reached not
// looked at, a backend without a look leaves its targets `unchecked`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TargetHealth } from './targetHealth.js';
import type { ProbeOutcome } from './probeTarget.js';

const fleet = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, identity: `f${i}#g` }));
let health: TargetHealth | undefined;
afterEach(() => health?.stop());

describe('health checks for a fleet', () => {
  it('50 targets appearing at once are looked at 3 at a time, each once, spread over the minute after', async () => {
    let running = 0;
    let most = 0;
    const looked = new Map<string, number>();
    const order: string[] = [];
    health = new TargetHealth({
      watched: () => fleet(50),
      probe: async (name): Promise<ProbeOutcome> => {
        running++;
        most = Math.max(most, running);
        looked.set(name, (looked.get(name) ?? 0) + 1);
        order.push(name);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return { ok: true, ms: 5 };
      },
      reachableAgain: () => undefined,
      onChange: () => undefined,
      timing: { reachableMs: 60_000, concurrency: 3 },
    });
    health.sync();
    await vi.waitFor(() => expect(looked.size).toBe(50), { timeout: 10_000 });
    expect(most).toBe(3);
    // The first pass looks at each once; a target's next look is placed at random in the minute after its first (the
    // spread), so on a slow machine one may already have come: only the first 50 looks are the pass.
    expect(new Set(order.slice(0, 50)).size).toBe(50);
    expect(health.view('f7#g')?.health.status).toBe('reachable');
  });

  it('a target a call reached within the interval is not looked at; without a look it is "unchecked"', async () => {
    const looks: string[] = [];
    const changes: boolean[] = [];
    health = new TargetHealth({
      watched: () => fleet(2),
      // f0's backend has a look; f1's has none.
      probe: async (name) => {
        looks.push(name);
        return name === 'f0' ? { ok: true, ms: 1 } : undefined;
      },
      reachableAgain: () => undefined,
      onChange: (news) => changes.push(news),
      timing: { reachableMs: 1000, retryMinMs: 100, retryMaxMs: 200 },
    });
    health.sync();
    await vi.waitFor(() => expect(health?.view('f1#g')?.health.status).toBe('unchecked'));
    expect(changes).toContain(true);
    // Calls keep reaching f0: its looks stop while they do. The first call comes now, in the same step as the count:
    // on a busy machine the first tick of the interval can come after f0's next look was due.
    health.reached('f0#g');
    const before = looks.filter((n) => n === 'f0').length;
    const calls = setInterval(() => health?.reached('f0#g'), 50);
    await new Promise((r) => setTimeout(r, 2500));
    clearInterval(calls);
    expect(looks.filter((n) => n === 'f0').length).toBe(before);
    // A call on the one nobody can look at is what tells.
    health.reached('f1#g');
    expect(health.view('f1#g')?.health.status).toBe('reachable');
  });
});
