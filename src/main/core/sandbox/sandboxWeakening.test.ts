// sandboxWeakening by table: every field from the default, from `off`, narrower and wider; links followed.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxSetting } from '../../../shared/specFields.js';
import { hostPaths, sandboxWeakening, specWeakening, type PathView } from './sandboxWeakening.js';

/** A home at /home/p where ~/data/etc is a link to /etc; nothing else is a link. */
const paths: PathView = {
  home: '/home/p',
  real: (p) => p.replace(/^\/home\/p\/data\/etc(?=\/|$)/, '/etc'),
};

type Row = [string, SandboxSetting | undefined, SandboxSetting | undefined, string[]];
const OFF = 'sandbox: off weakens the sandbox (agent work would run with your powers)';

const rows: Row[] = [
  // From the default to each field.
  ['default to default', undefined, undefined, []],
  ['default to an empty setting', undefined, {}, []],
  ['default to off', undefined, 'off', [OFF]],
  ['default to workspace mode', undefined, { mode: 'workspace' }, []],
  [
    'default to a writable path',
    undefined,
    { writable: ['~/data'] },
    ['writable ~/data weakens the sandbox (agent work could write there)'],
  ],
  ['default to network on', undefined, { network: true }, []],
  ['default to no network', undefined, { network: false }, []],
  [
    'default to a local port',
    undefined,
    { allow_local_ports: [5432] },
    ["allow_local_ports 5432 weakens the sandbox (agent work could reach this machine's port 5432)"],
  ],
  ['default (any host) to a list of hosts', undefined, { allow_hosts: ['example.com'] }, []],
  ['default to a deny_write row', undefined, { deny_write: ['~/.env'] }, []],
  ['default to limits', undefined, { max_processes: 64, max_memory_mb: 512 }, []],
  // From off: nothing is weaker.
  ['off to off', 'off', 'off', []],
  ['off to the default', 'off', undefined, []],
  ['off to the widest setting', 'off', { writable: ['/'], allow_local_ports: [22], network: true, deny_write: [] }, []],
  // To off from anything else.
  ['a wide setting to off', { writable: ['/'], allow_local_ports: [1, 2] }, 'off', [OFF]],
  // writable
  ['the same writable path', { writable: ['~/data'] }, { writable: ['~/data'] }, []],
  ['a path inside an allowed one', { writable: ['~/data'] }, { writable: ['~/data/sub/'] }, []],
  ['the same path spelt otherwise', { writable: ['~/data'] }, { writable: ['/home/p/./data/../data'] }, []],
  ["a relative path is the home's", { writable: ['data'] }, { writable: ['~/data/x'] }, []],
  ['~ covers everything in the home', { writable: ['~'] }, { writable: ['~/a', '/home/p/b'] }, []],
  [
    'a sibling with a common prefix',
    { writable: ['~/data'] },
    { writable: ['~/database'] },
    ['writable ~/database weakens the sandbox (agent work could write there)'],
  ],
  [
    'a parent of an allowed path',
    { writable: ['~/data/sub'] },
    { writable: ['~/data'] },
    ['writable ~/data weakens the sandbox (agent work could write there)'],
  ],
  [
    'a link inside an allowed path that leads out of it',
    { writable: ['~/data'] },
    { writable: ['~/data/etc'] },
    ['writable ~/data/etc weakens the sandbox (agent work could write in /etc)'],
  ],
  ['fewer writable paths', { writable: ['~/a', '~/b'] }, { writable: ['~/a'] }, []],
  ['no writable paths', { writable: ['~/a'] }, {}, []],
  // network
  [
    'network turned on',
    { network: false },
    { network: true },
    ['network on weakens the sandbox (agent work could reach any public host)'],
  ],
  [
    'network on by default again',
    { network: false },
    {},
    ['network on weakens the sandbox (agent work could reach any public host)'],
  ],
  [
    'network on to listed hosts',
    { network: false },
    { allow_hosts: ['a.example'] },
    ['network on weakens the sandbox (agent work could reach a.example)'],
  ],
  ['network turned off', { network: true }, { network: false }, []],
  // allow_hosts
  [
    'allow_hosts removed',
    { allow_hosts: ['example.com'] },
    {},
    ['no allow_hosts weakens the sandbox (agent work could reach any public host)'],
  ],
  [
    'a host added',
    { allow_hosts: ['example.com'] },
    { allow_hosts: ['example.com', 'evil.test'] },
    ['allow_hosts evil.test weakens the sandbox (agent work could reach it)'],
  ],
  ['a host removed', { allow_hosts: ['a.test', 'b.test'] }, { allow_hosts: ['a.test'] }, []],
  ['a host in another case', { allow_hosts: ['Example.com'] }, { allow_hosts: ['example.COM'] }, []],
  ['a subdomain under a wildcard', { allow_hosts: ['*.example.com'] }, { allow_hosts: ['api.example.com'] }, []],
  ['a narrower wildcard', { allow_hosts: ['*.example.com'] }, { allow_hosts: ['*.eu.example.com'] }, []],
  [
    "the wildcard's own domain",
    { allow_hosts: ['*.example.com'] },
    { allow_hosts: ['example.com'] },
    ['allow_hosts example.com weakens the sandbox (agent work could reach it)'],
  ],
  [
    'a wider wildcard',
    { allow_hosts: ['api.example.com'] },
    { allow_hosts: ['*.example.com'] },
    ['allow_hosts *.example.com weakens the sandbox (agent work could reach it)'],
  ],
  ['a list of hosts to no network', { allow_hosts: ['a.test'] }, { network: false }, []],
  ['hosts added with no network', { network: false, allow_hosts: ['a.test'] }, { network: false }, []],
  // allow_local_ports
  ['the same ports', { allow_local_ports: [5432, 6379] }, { allow_local_ports: [6379] }, []],
  [
    'a new port',
    { allow_local_ports: [5432] },
    { allow_local_ports: [5432, 22] },
    ["allow_local_ports 22 weakens the sandbox (agent work could reach this machine's port 22)"],
  ],
  [
    'a new port with no network',
    { network: false },
    { network: false, allow_local_ports: [22] },
    ["allow_local_ports 22 weakens the sandbox (agent work could reach this machine's port 22)"],
  ],
  // deny_write
  ['deny rows kept', { deny_write: ['~/.env'] }, { deny_write: ['~/.env', '~/x'] }, []],
  ['a deny row covered by a wider one', { deny_write: ['~/.config/app'] }, { deny_write: ['~/.config'] }, []],
  [
    'a deny row removed',
    { deny_write: ['~/.env', '~/.git/hooks'] },
    { deny_write: ['~/.env'] },
    ['dropping deny_write ~/.git/hooks weakens the sandbox (agent work could write there)'],
  ],
  [
    'a deny row narrowed',
    { deny_write: ['~/.config'] },
    { deny_write: ['~/.config/app'] },
    ['dropping deny_write ~/.config weakens the sandbox (agent work could write there)'],
  ],
  // limits are not weakening
  ['a looser limit', { max_processes: 64, max_memory_mb: 256 }, { max_processes: 4096 }, []],
  // several at once, in field order
  [
    'several weakenings',
    { network: false, deny_write: ['~/.env'] },
    { writable: ['/srv'], allow_local_ports: [80] },
    [
      'writable /srv weakens the sandbox (agent work could write there)',
      'network on weakens the sandbox (agent work could reach any public host)',
      "allow_local_ports 80 weakens the sandbox (agent work could reach this machine's port 80)",
      'dropping deny_write ~/.env weakens the sandbox (agent work could write there)',
    ],
  ],
];

describe('sandboxWeakening', () => {
  it.each(rows)('%s', (_name, before, after, expected) => {
    expect(sandboxWeakening(before, after, paths)).toEqual(expected);
  });
});

describe('specWeakening', () => {
  const local = (sandbox?: unknown): Record<string, unknown> => ({
    backend: 'local',
    ...(sandbox === undefined ? {} : { sandbox }),
  });
  it.each<[string, Record<string, unknown> | undefined, Record<string, unknown>, number]>([
    ['a new target against the default', undefined, local('off'), 1],
    ['a new sandboxed target', undefined, local({ network: false }), 0],
    ['a replacement against the spec it replaces', local('off'), local('off'), 0],
    ['a replacement that narrows', local('off'), local({ writable: ['/srv'] }), 0],
    ['a replacement that widens', local({ network: false }), local(), 1],
    ['a replacement of another backend against the default', { backend: 'ssh', sandbox: 'off' }, local('off'), 1],
    ['a setting that does not parse counts as the default', local('off'), local({ netwrk: false }), 0],
  ])('%s', (_name, replaced, spec, count) => {
    expect(specWeakening(replaced, spec, ['sandbox'], paths)).toHaveLength(count);
  });

  it.each<[string, string, string | undefined, string[]]>([
    ['a project under the home', '~/proj', undefined, []],
    ['the home itself (the default)', '~', undefined, []],
    ['a project folder elsewhere', '/srv/app', undefined, []],
    ['the whole file system', '/', undefined, ['cwd / makes the whole file system writable to agent work']],
    ['a system folder', '/etc/nginx', undefined, ['cwd /etc/nginx makes /etc writable to agent work']],
    ["everyone's homes", '/home', undefined, ['cwd /home makes /home writable to agent work']],
    ["another user's home", '/home/q/work', undefined, ['cwd /home/q/work makes /home/q writable to agent work']],
    ['a web site under /var/www', '/var/www/site', undefined, []],
    ['/var itself', '/var', undefined, ['cwd /var makes /var writable to agent work']],
    ['as wide as the workspace it replaces', '/', '/', []],
  ])('a workspace: %s', (_name, cwd, before, expected) => {
    const spec = { ...local(), cwd };
    const replaced = before === undefined ? undefined : { ...local(), cwd: before };
    expect(specWeakening(replaced, spec, ['sandbox'], paths)).toEqual(expected);
    // Unsandboxed, the workspace weighs nothing more: `sandbox: off` is the weakening said.
    expect(specWeakening(undefined, { ...local('off'), cwd }, ['sandbox'], paths)).toHaveLength(1);
  });

  it('has nothing to weigh for a backend without a sandbox key', () => {
    expect(specWeakening(undefined, { backend: 'ssh', sandbox: 'off' }, [], paths)).toEqual([]);
  });
});

describe('hostPaths', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-weaken-')));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('follows links, also under a path that does not exist yet', () => {
    mkdirSync(join(dir, 'data'));
    mkdirSync(join(dir, 'outside'));
    symlinkSync(join(dir, 'outside'), join(dir, 'data', 'out'));
    const host = { ...hostPaths(), home: dir };
    expect(host.real(join(dir, 'data', 'out', 'new', 'deeper'))).toBe(join(dir, 'outside', 'new', 'deeper'));
    expect(sandboxWeakening({ writable: ['~/data'] }, { writable: ['~/data/out/new'] }, host)).toEqual([
      `writable ~/data/out/new weakens the sandbox (agent work could write in ${join(dir, 'outside', 'new')})`,
    ]);
    expect(sandboxWeakening({ writable: ['~/data'] }, { writable: ['~/data/in/new'] }, host)).toEqual([]);
  });
});
