// `targets register --from` and `targets drain|remove --provider P --owner-id O` through the built CLI: many targets
// in one run, one result line per entry, a refused entry losing nothing else.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, ensureBuilt } from '../../../scripts/cliHarness.js';

const root = mkdtempSync(join(tmpdir(), 'sb-cli-bulk-'));
let n = 0;
/** A fresh profile per test: what one test registers never meets another's. */
const freshHome = (): string => join(root, `home-${++n}`);

function sb(home: string, args: string[], input?: string) {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    env: { ...process.env, SWITCHBOARD_HOME: home },
    encoding: 'utf8',
    timeout: 30_000,
    ...(input !== undefined ? { input } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Listed {
  name: string;
  source: string;
  state: string;
  generation: string;
  owner_id?: string;
  backend: string;
}
const listed = (home: string): Listed[] =>
  (JSON.parse(sb(home, ['targets', 'list', '--json']).stdout) as { targets: Listed[] }).targets.filter(
    (t) => t.source === 'runtime',
  );
const names = (home: string): string[] => listed(home).map((t) => t.name);

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('targets register --from', () => {
  it('JSON lines from a file: one line per entry, bad ones named by line, the good ones all registered', () => {
    const home = freshHome();
    const file = join(root, 'fleet.jsonl');
    writeFileSync(
      file,
      [
        `{"name":"f1","backend":"local","cwd":${JSON.stringify(root)}}`,
        '{"name":"f2","spec":{"backend":"ssh","ssh_host":"10.0.0.2","ssh_user":"ci"}}',
        'this is not { json',
        '{"name":"f3","backend":"ssh","ssh_host":"10.0.0.3","ssh_password":"hunter2"}',
        '',
        '{"name":"f4","backend":"nosuch"}',
        '{"name":"f5","backend":"docker","docker_image":"alpine","provider":"other"}',
      ].join('\n'),
    );
    const r = sb(home, ['targets', 'register', '--from', file, '--provider', 'ci', '--owner-id', 'job-41']);
    expect(r.code).toBe(2);
    expect(r.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^registered local target "f1" at generation \S+ \(provider ci\)$/),
      expect.stringMatching(/^registered ssh target "f2" .*\(provider ci\)$/),
      expect.stringMatching(/^registered docker target "f5" .*\(provider other\)$/),
    ]);
    const errors = r.stderr.trim().split('\n');
    expect(errors).toHaveLength(3);
    expect(errors[0]).toBe('switchboard: line 3: not valid JSON');
    expect(errors[1]).toMatch(/^switchboard: line 4 \("f3"\): .*ssh_password .*would store a secret/);
    expect(errors[2]).toMatch(/^switchboard: line 6 \("f4"\): unknown backend "nosuch"/);
    // The secret is never echoed back.
    expect(r.stderr + r.stdout).not.toContain('hunter2');
    expect(names(home)).toEqual(['f1', 'f2', 'f5']);
    expect(listed(home).find((t) => t.name === 'f1')?.owner_id).toBe('job-41');
  });

  it('a YAML list, and the same from stdin', () => {
    const yaml = [
      '- name: y1',
      '  backend: docker',
      '  docker_image: alpine',
      '- name: y2',
      `  spec: { backend: local, cwd: ${root} }`,
      '- { name: "bad name!", backend: local }',
      '- name: y3',
      '  backend: local',
      '  colour: blue',
      '',
    ].join('\n');
    const file = join(root, 'fleet.yaml');
    writeFileSync(file, yaml);
    const home = freshHome();
    const r = sb(home, ['targets', 'register', '--from', file]);
    expect(r.code).toBe(2);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/^switchboard: entry 3 \("bad name!"\): invalid target name/m);
    expect(r.stderr).toMatch(/^switchboard: entry 4 \("y3"\): invalid local target "y3": unknown key "colour"/m);
    expect(names(home)).toEqual(['y1', 'y2']);

    const piped = freshHome();
    const s = sb(piped, ['targets', 'register', '--from', '-', '--json'], yaml);
    expect(s.code).toBe(2);
    const doc = JSON.parse(s.stdout) as { ok: number; failed: number; results: Array<Record<string, unknown>> };
    expect(doc).toMatchObject({ ok: 2, failed: 2 });
    expect(doc.results.map((x) => x.entry)).toEqual(['entry 1', 'entry 2', 'entry 3', 'entry 4']);
    expect(doc.results[2]).toMatchObject({ name: 'bad name!', error: { code: 'bad_request' } });
    expect(s.stderr).toBe('switchboard: 2 of 4 entries were refused\n');
    expect(names(piped)).toEqual(['y1', 'y2']);
  });

  it('JSON lines on stdin; YAML that is not a list fails as a whole and registers nothing', () => {
    const home = freshHome();
    const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ name: `s${i}`, backend: 'local' })).join('\n');
    const r = sb(home, ['targets', 'register', '--from', '-'], lines);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(50);
    expect(names(home)).toHaveLength(50);

    const other = freshHome();
    const bad = sb(other, ['targets', 'register', '--from', '-'], 'name: x\nbackend: local\n');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'switchboard: --from: the YAML is not a list — give a list of targets (- name: f1 …), ' +
        'or JSON lines (one object a line)\n',
    );
    const beside = sb(other, ['targets', 'register', 'x', '--from', '-', '--backend', 'local'], '');
    expect(beside.stderr).toMatch(
      /--from takes every target from its input; a name \(x\), --backend cannot go with it/,
    );
  });

  it('ownership and compare-and-swap are checked per entry: a refused one is named, the others go through', () => {
    const home = freshHome();
    const first = sb(
      home,
      ['targets', 'register', '--from', '-', '--provider', 'ci', '--owner-id', 'A'],
      ['{"name":"mine","backend":"local"}', '{"name":"theirs","backend":"local"}'].join('\n'),
    );
    expect(first.code).toBe(0);
    const gen = listed(home).find((t) => t.name === 'mine')!.generation;
    const r = sb(
      home,
      ['targets', 'register', '--from', '-', '--provider', 'ci', '--owner-id', 'B'],
      [
        // B may not replace what A owns.
        `{"name":"theirs","backend":"local","cwd":${JSON.stringify(root)},"replace":true}`,
        // A (named in the entry) replaces its own, compare-and-swap on the right generation: fine.
        `{"name":"mine","backend":"local","cwd":${JSON.stringify(root)},"owner_id":"A","if_generation":"${gen}"}`,
        // The same again: the generation moved on, so the swap is refused.
        `{"name":"mine","backend":"local","cwd":${JSON.stringify(join(root, 'again'))},` +
          `"owner_id":"A","if_generation":"${gen}"}`,
        '{"name":"new","backend":"local"}',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
    const errors = r.stderr.trim().split('\n');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^switchboard: line 1 \("theirs"\): target "theirs" belongs to owner "A"/);
    expect(errors[1]).toMatch(
      new RegExp(`^switchboard: line 3 \\("mine"\\): target "mine" is at generation \\S+, not ${gen}`),
    );
    expect(r.stdout).toMatch(/^replaced target "mine": generation /m);
    expect(r.stdout).toMatch(/^registered local target "new"/m);
    const after = listed(home);
    expect(after.map((t) => t.name).sort()).toEqual(['mine', 'new', 'theirs']);
    expect(after.find((t) => t.name === 'theirs')?.owner_id).toBe('A');
  });

  it('odd entries each get their own line: a list, a number for a name, the same name twice in one batch', () => {
    const home = freshHome();
    const r = sb(
      home,
      ['targets', 'register', '--from', '-'],
      [
        '{"name":"twice","backend":"local"}',
        `{"name":"twice","backend":"local","cwd":${JSON.stringify(root)}}`,
        '{"name":7,"backend":"local"}',
        '{"name":"flags","backend":"local","replace":"yes"}',
        '{"name":"both","spec":{"backend":"local"},"backend":"local"}',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
    const errors = r.stderr.trim().split('\n');
    expect(errors).toHaveLength(4);
    expect(errors[0]).toMatch(/^switchboard: line 2 \("twice"\): target "twice" is already registered/);
    expect(errors[1]).toMatch(/^switchboard: line 3: .*name/);
    expect(errors[2]).toMatch(/^switchboard: line 4 \("flags"\): .*replace/);
    expect(errors[3]).toMatch(/^switchboard: line 5 \("both"\): .*backend/);
    expect(names(home)).toEqual(['twice']);
    const list = sb(home, ['targets', 'register', '--from', '-'], '[1, 2]');
    expect(list.stderr).toMatch(/^switchboard: entry 1: an entry is an object with a name\nswitchboard: entry 2: /);
  });
});

describe('targets drain|remove by owner', () => {
  it('--dry-run lists and changes nothing; then every target of that owner drains, then goes; others stay', () => {
    const home = freshHome();
    const fleet = (owner: string, prefix: string, k: number) =>
      sb(
        home,
        ['targets', 'register', '--from', '-', '--provider', 'ci', '--owner-id', owner],
        Array.from({ length: k }, (_, i) => JSON.stringify({ name: `${prefix}${i}`, backend: 'local' })).join('\n'),
      );
    expect(fleet('job-41', 'a', 12).code).toBe(0);
    expect(fleet('job-42', 'b', 3).code).toBe(0);

    const dry = sb(home, ['targets', 'drain', '--provider', 'ci', '--owner-id', 'job-41', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout.trim().split('\n')).toHaveLength(13);
    expect(dry.stdout).toMatch(/^would drain "a0" \(local, generation \S+\)$/m);
    expect(dry.stdout).toMatch(/dry run: nothing was changed \(12 targets of provider "ci" owner "job-41"\)/);
    expect(listed(home).every((t) => t.state === 'active')).toBe(true);

    const drained = sb(home, ['targets', 'drain', '--provider', 'ci', '--owner-id', 'job-41', '--json']);
    expect(drained.code).toBe(0);
    expect((JSON.parse(drained.stdout) as { ok: number }).ok).toBe(12);
    expect(
      listed(home)
        .filter((t) => t.state === 'draining')
        .map((t) => t.name),
    ).toHaveLength(12);

    const dryRemove = sb(home, [
      'targets',
      'remove',
      '--provider',
      'ci',
      '--owner-id',
      'job-41',
      '--dry-run',
      '--json',
    ]);
    expect(JSON.parse(dryRemove.stdout)).toMatchObject({ dry_run: true, ok: 12 });
    expect(names(home)).toHaveLength(15);

    const removed = sb(home, ['targets', 'remove', '--provider', 'ci', '--owner-id', 'job-41']);
    expect(removed.code).toBe(0);
    expect(removed.stdout.trim().split('\n')).toHaveLength(12);
    expect(names(home)).toEqual(['b0', 'b1', 'b2']);

    // Another provider, or the provider without the owner id, owns none of them.
    const none = sb(home, ['targets', 'remove', '--provider', 'ci']);
    expect(none.stdout).toBe('no runtime targets of provider "ci" (no owner id)\n');
    expect(names(home)).toHaveLength(3);
    const bare = sb(home, ['targets', 'drain']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^switchboard: name the target to drain — or pass --provider P --owner-id O/);
  });
});
