// Test fixture: a separate process that hammers the registry (race test) or writes until killed (crash test).
import { SwitchboardError } from '../../../shared/errors.js';
import { Registry } from './registry.js';

const [mode, home, idText, opsText] = process.argv.slice(2);
const id = Number(idText);
const ops = Number(opsText ?? '50');
const registry = new Registry(home!, { lockTimeoutMs: 30_000 });
const who = { provider: `w${id}` };

/** Compare-and-swap increment of a shared counter kept in the spec's `timeout`; retries on conflict. */
async function increment(name: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    registry.refresh();
    const cur = registry.get(name);
    if (!cur) throw new Error(`shared ${name} missing`);
    try {
      await registry.register({
        name,
        spec: { backend: 'local', timeout: (cur.spec.timeout ?? 0) + 1 },
        provider: 'shared',
        if_generation: cur.generation,
      });
      return attempt;
    } catch (err) {
      if (err instanceof SwitchboardError && err.code === 'registry_conflict') continue;
      throw err;
    }
  }
}

async function race(): Promise<void> {
  const result = { increments: [0, 0], attempts: 0, firstWins: 0, ops: 0, start: Date.now(), end: 0 };
  try {
    await registry.register({ name: 'first', spec: { backend: 'local' }, ...who });
    result.firstWins = 1;
  } catch (err) {
    if (!(err instanceof SwitchboardError) || err.code !== 'registry_conflict') throw err;
  }
  result.ops++;
  for (let i = 0; i < ops; i++) {
    const own = (j: number): string => `w${id}n${j}`;
    switch (i % 5) {
      case 0:
      case 2:
        await registry.register({
          name: own(i),
          spec: { backend: 'local', cwd: `/tmp/${id}/${i}` },
          ...who,
          generation: `g${id}x${i}`,
        });
        break;
      case 1: {
        const k = i % 2;
        result.attempts += await increment(`shared${k}`);
        result.increments[k]!++;
        break;
      }
      case 3:
        await registry.drain({ name: own(i - 1), ...who });
        break;
      case 4:
        await registry.remove({ name: own(i - 4), ...who, generation: `g${id}x${i - 4}` });
        break;
    }
    result.ops++;
  }
  result.end = Date.now();
  process.stdout.write(JSON.stringify(result) + '\n');
}

/** Replace `crash` with counter n+1 and add `c<n>` forever, saying each acknowledged n on stdout. */
async function crash(): Promise<void> {
  registry.refresh();
  let n = registry.get('crash')?.spec.timeout ?? 0;
  for (;;) {
    n++;
    await registry.register({
      name: 'crash',
      spec: { backend: 'local', timeout: n },
      provider: 'crash',
      replace: true,
    });
    await registry.register({
      name: `c${n % 200}`,
      spec: { backend: 'local', timeout: n },
      provider: 'crash',
      replace: true,
    });
    process.stdout.write(`ok ${n}\n`);
  }
}

/** Take the lock and never let go (until SIGKILL). */
async function hold(): Promise<void> {
  const { FileLock } = await import('../platform/index.js');
  await new FileLock(registry.path).acquire();
  process.stdout.write('held\n');
  setInterval(() => undefined, 1000);
}

const modes: Record<string, () => Promise<void>> = { race, crash, hold };
modes[mode!]!().catch((err: unknown) => {
  process.stderr.write(`worker ${id}: ${(err as Error).message}\n`);
  process.exit(1);
});
