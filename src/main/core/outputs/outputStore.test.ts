import { afterEach, describe, expect, it } from 'vitest';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import { OutputStore, type OutputLimits } from './outputStore.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function store(limits: Partial<OutputLimits> = {}): OutputStore {
  const root = mkdtempSync(join(tmpdir(), 'sb-outputs-'));
  roots.push(root);
  return new OutputStore(join(root, 'state', 'outputs'), {
    perCallBytes: 1 << 20,
    totalBytes: 4 << 20,
    retentionMs: 60_000,
    ...limits,
  });
}

const owner = { execution_target: 'a', generation: 'g1' };

/** Push `text` in pieces of `chunk` chars through a spool that keeps after `after` chars; its output_id. */
function keep(s: OutputStore, text: string, chunk = 4096, after = 10): string | undefined {
  const spool = s.spool(owner, after);
  for (let i = 0; i < text.length; i += chunk) spool.push(text.slice(i, i + chunk));
  return spool.finish();
}

/** Read a kept output back whole, `limit` chars at a time, following next_offset. */
function readAll(s: OutputStore, id: string, limit: number): string {
  let out = '';
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const slice = s.read(id, { offset, limit });
    expect(slice.offset).toBe(offset);
    out += slice.output;
    expect(slice.has_more).toBe(slice.next_offset !== undefined);
    offset = slice.next_offset;
  }
  return out;
}

function refusal(fn: () => unknown): SwitchboardError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SwitchboardError) return err;
    throw err;
  }
  throw new Error('it did not refuse');
}

describe('OutputStore', () => {
  it('keeps nothing for a short output: no file, no id', () => {
    const s = store();
    expect(keep(s, 'short', 4096, 100)).toBeUndefined();
    expect(existsSync(s.dir)).toBe(false);
  });

  it('reads a long output back whole, in slices of any size, across multi-byte chars and surrogate pairs', () => {
    const s = store();
    // ASCII, 2-, 3- and 4-byte UTF-8 (a surrogate pair in JS), over several marks (64 Ki chars apart).
    const text = Array.from({ length: 40_000 }, (_, i) => `${i} é€😀\n`).join('');
    const id = keep(s, text, 1000)!;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    for (const limit of [4099, 65_536, 100_001, 10_000_000]) expect(readAll(s, id, limit)).toBe(text);
    // A slice of one char may hold half a pair (asked for); a longer slice never ends inside one: the next starts with
    // the pair.
    const pairAt = text.indexOf('😀');
    const a = s.read(id, { offset: pairAt, limit: 1 });
    expect(a.output).toBe('\ud83d');
    // An offset between the two halves starts at the pair.
    expect(s.read(id, { offset: pairAt + 1, limit: 4 })).toMatchObject({ offset: pairAt, output: '😀\n1' });
    const two = s.read(id, { offset: pairAt - 1, limit: 2 });
    expect(two.output).toBe('€');
    expect(two.next_offset).toBe(pairAt);
  });

  it('its files are private: the directory 0700, each file 0600, a planted link is not followed', () => {
    const s = store();
    const id = keep(s, 'x'.repeat(100))!;
    expect(lstatSync(s.dir).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(s.dir);
    expect(file).toBe(`${id}.out`);
    expect(lstatSync(join(s.dir, file!)).mode & 0o777).toBe(0o600);
  });

  it('a previous run left outputs (or a link) where the directory goes: they are removed, not used', () => {
    const s = store();
    const victim = join(s.dir, '..', 'victim');
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, 'keep'), 'x');
    symlinkSync(victim, s.dir);
    s.clearLeftovers();
    keep(s, 'y'.repeat(100));
    expect(lstatSync(s.dir).isDirectory()).toBe(true);
    expect(existsSync(join(victim, 'keep'))).toBe(true);
    expect(readdirSync(victim)).toEqual(['keep']);
  });

  it('refuses ids it did not give, ids in another shape, and another target, in the same words', () => {
    const s = store();
    const id = keep(s, 'z'.repeat(100))!;
    for (const bad of ['0'.repeat(32), '../../core.json', `${id}/../${id}`, id.toUpperCase(), '']) {
      const err = refusal(() => s.read(bad, { offset: 0, limit: 10 }));
      expect(err.code).toBe('unknown_output');
      expect(err.message).not.toContain('\n');
    }
    expect(refusal(() => s.read(id, { offset: 0, limit: 10, target: 'b' })).code).toBe('unknown_output');
    expect(s.read(id, { offset: 0, limit: 10, target: 'a' }).output).toBe('z'.repeat(10));
  });

  it('an offset past the end is one clear error; at the end it is an empty last slice', () => {
    const s = store();
    const id = keep(s, 'w'.repeat(100))!;
    expect(s.read(id, { offset: 100, limit: 10 })).toMatchObject({ output: '', has_more: false, total_chars: 100 });
    const err = refusal(() => s.read(id, { offset: 101, limit: 10 }));
    expect([err.code, err.message]).toEqual(['bad_request', `offset 101 is past the end of output ${id} (100 chars)`]);
  });

  it('bounds one call: what is past its bound is counted as cut', () => {
    const s = store({ perCallBytes: 200_000 });
    const id = keep(s, 'c'.repeat(300_000), 50_000)!;
    const slice = s.read(id, { offset: 0, limit: 10 });
    expect(slice.total_chars).toBeLessThanOrEqual(200_000);
    expect(slice.total_chars + slice.cut_chars!).toBe(300_000);
  });

  it('bounds them all: the oldest go first to make room', () => {
    const s = store({ perCallBytes: 400_000, totalBytes: 1_000_000 });
    const ids = [1, 2, 3, 4].map((n) => keep(s, String(n).repeat(300_000), 100_000)!);
    expect(() => s.read(ids[0]!, { offset: 0, limit: 1 })).toThrow(/no output/);
    for (const id of ids.slice(1)) expect(s.read(id, { offset: 0, limit: 1 }).total_chars).toBe(300_000);
    expect(readdirSync(s.dir)).toHaveLength(3);
  });

  it('forgets an output after its retention time, and everything when it closes', async () => {
    const s = store({ retentionMs: 50 });
    const id = keep(s, 'r'.repeat(100))!;
    await new Promise((r) => setTimeout(r, 80));
    expect(refusal(() => s.read(id, { offset: 0, limit: 1 })).code).toBe('unknown_output');
    expect(readdirSync(s.dir)).toHaveLength(0);
    keep(s, 'q'.repeat(100));
    s.close();
    expect(existsSync(s.dir)).toBe(false);
  });

  it('a spool whose call failed, or whose result was not cut, leaves nothing', () => {
    const s = store();
    const spool = s.spool(owner, 10);
    spool.push('v'.repeat(100));
    spool.discard();
    expect(readdirSync(s.dir)).toHaveLength(0);
  });
});
