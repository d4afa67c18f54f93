// The Sandbox's pure parts, by table: the policy, the bubblewrap argv, the Seatbelt profile, the failure note, and
// the /proc and stat(1) parsing.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxSetting } from '../../../shared/specFields.js';
import { localSpec } from '../backends/index.js';
import { bwrapArgs } from './bwrapArgs.js';
import { seatbeltProfile } from './seatbelt.js';
import { BROWSER_PROFILE_DIRS, sandboxPolicy, type PolicyInput, type SandboxPolicy } from './sandboxPolicy.js';
import { sandboxNote } from './sandboxNote.js';
import { namespaceIds } from './pidNamespace.js';
import { Sandbox, sandboxInfo, sandboxLine } from './sandbox.js';
import { resetSandboxAvailability, sandboxAvailability } from './sandboxAvailability.js';

const existing = new Set([
  '/home/p/.ssh',
  '/home/p/.ssh/known_hosts',
  '/home/p/.aws',
  '/home/p/.netrc',
  '/home/p/.claude.json',
  '/home/p/.npm',
  '/home/p/.cache',
  '/home/p/.bashrc',
  '/home/p/.profile',
  '/home/p/.config',
  '/home/p/.config/systemd',
  '/home/p/.local',
  '/home/p/.cargo',
  '/home/p/.cargo/bin',
  '/home/p/project/.git',
  '/home/p/project/.git/config',
  '/home/p/project/.git/hooks',
  '/data',
  '/run/docker.sock',
  '/home/p',
  '/home/p/project',
]);
const dirs = new Set([
  '/home/p/.ssh',
  '/home/p/.aws',
  '/home/p/.npm',
  '/home/p/.cache',
  '/home/p/.config',
  '/home/p/.config/systemd',
  '/home/p/.local',
  '/home/p/.cargo',
  '/home/p/.cargo/bin',
  '/home/p/project/.git',
  '/home/p/project/.git/hooks',
  '/data',
]);
const TMP = '/home/p/.switchboard/state/sandbox/abc/tmp';
const CACHES = '/home/p/.switchboard/state/caches/t1';

function input(over: Partial<PolicyInput> = {}): PolicyInput {
  return {
    setting: undefined,
    home: '/home/p',
    profile: '/home/p/.switchboard',
    workspace: '/home/p/project',
    tmp: TMP,
    caches: CACHES,
    exists: (p) => existing.has(p),
    isDir: (p) => dirs.has(p),
    ...over,
  };
}

describe('sandboxPolicy', () => {
  it('writable: the workspace and listed paths that exist (never the caches of the person); masks what exists', () => {
    const p = sandboxPolicy(input({ setting: { writable: ['/data', '~/missing'] } }));
    expect(p.writable).toEqual(['/home/p/project', '/data']);
    expect(p.missingWritable).toEqual(['/home/p/missing']);
    expect(p.tmp).toBe(TMP);
    expect(p.caches).toBe(CACHES);
    expect(p.maskedDirs).toEqual([
      { path: '/home/p/.ssh', keep: ['/home/p/.ssh/known_hosts'] },
      { path: '/home/p/.aws', keep: [] },
    ]);
    expect(p.maskedFiles).toEqual(['/home/p/.netrc', '/home/p/.claude.json', '/run/docker.sock']);
    expect(p.network).toBe(true);
  });
  it('builds use the target caches, through their own variables', () => {
    const env = sandboxPolicy(input()).env;
    expect(env).toMatchObject({
      XDG_CACHE_HOME: `${CACHES}/xdg`,
      npm_config_cache: `${CACHES}/npm`,
      PIP_CACHE_DIR: `${CACHES}/pip`,
      CARGO_HOME: `${CACHES}/cargo`,
      GOPATH: `${CACHES}/go`,
      GRADLE_USER_HOME: `${CACHES}/gradle`,
      MAVEN_OPTS: `-Dmaven.repo.local=${CACHES}/m2/repository`,
    });
  });
  it('a workspace outside the home: only the repository rows apply in it', () => {
    const p = sandboxPolicy(input({ repositories: ['/home/p/project'] }));
    expect(p.readOnly).toEqual(['/home/p/project/.git/config', '/home/p/project/.git/hooks']);
    expect(p.placeholders).toEqual([]);
    expect(p.pins).toEqual(['/home/p/project/.git']);
  });
  describe('a workspace that is the home', () => {
    const p = sandboxPolicy(
      input({ workspace: '/home/p', pathDirs: ['/usr/bin', '/home/p/.cargo/bin', '/home/p/.pyenv/shims'] }),
    );
    it('existing start-up files, toolchains and caches stay read-only, nested rows folded into their folder', () => {
      for (const path of ['.bashrc', '.profile', '.config/systemd', '.cargo', '.npm', '.cache'])
        expect(p.readOnly).toContain(`/home/p/${path}`);
      expect(p.readOnly).not.toContain('/home/p/.cargo/bin');
      expect(p.readOnly).not.toContain('/home/p/.ssh');
    });
    it('missing ones get placeholders: the path, or its first missing folder', () => {
      const at = (path: string) => p.placeholders.find((x) => x.path === `/home/p/${path}`);
      expect(at('.bash_aliases')).toEqual({ path: '/home/p/.bash_aliases', kind: 'file', content: '' });
      expect(at('.bash_profile')?.content).toContain('. "$HOME/.profile"');
      expect(at('.inputrc')?.content).toContain('$include /etc/inputrc');
      expect(at('.config/fish')).toEqual({ path: '/home/p/.config/fish', kind: 'dir', content: '' });
      expect(at('.local/bin')).toMatchObject({ kind: 'dir' });
      expect(at('.kube')).toMatchObject({ kind: 'dir' });
      expect(at('.claude.json')).toBeUndefined(); // it exists: masked
      expect(at('.pyenv')).toMatchObject({ kind: 'dir' }); // its shims are on PATH; the folder is a toolchain row
      expect(at('.xsession')).toBeUndefined(); // an empty one would end the session: only held once it exists
      expect(p.missingDenied).toContain('/home/p/.xsession');
    });
    it('a row of a program that is not installed gets no placeholder (its path is still refused once made)', () => {
      const q = sandboxPolicy(input({ workspace: '/home/p', hasTool: (t) => t === 'zsh' }));
      const made = q.placeholders.map((x) => x.path);
      expect(made).toContain('/home/p/.zshrc');
      expect(made).not.toContain('/home/p/.cshrc');
      expect(made).not.toContain('/home/p/.tmux.conf');
      expect(made).toContain('/home/p/.bash_aliases');
      expect(made).toContain('/home/p/.claude');
      expect(q.missingDenied).toContain('/home/p/.cshrc');
    });
    it('pins every folder between the workspace and what it protects, never a protected one', () => {
      expect(p.pins).toEqual(['/home/p/.config', '/home/p/.local']);
    });
  });
  it("a submodule's git folder has its config and hooks held as a repository's", () => {
    const p = sandboxPolicy(
      input({
        repositories: ['/home/p/project'],
        gitDirs: ['/home/p/project/.git/modules/lib'],
        exists: (x) => existing.has(x) || x === '/home/p/project/.git/modules/lib/config',
      }),
    );
    expect(p.readOnly).toContain('/home/p/project/.git/modules/lib/config');
    expect(p.missingDenied).toContain('/home/p/project/.git/modules/lib/hooks');
  });
  it("the machine's secrets are masked where they exist (a root person's agent could read them)", () => {
    const p = sandboxPolicy(input({ exists: (x) => existing.has(x) || x === '/etc/shadow' }));
    expect(p.maskedFiles).toContain('/etc/shadow');
  });
  it('deny_write adds rows; a missing one is a placeholder', () => {
    const p = sandboxPolicy(
      input({ setting: { deny_write: ['~/project/secrets', '/data/keep/'], writable: ['/data'] } }),
    );
    expect(p.placeholders).toEqual([
      { path: '/home/p/project/secrets', kind: 'file', content: '' },
      { path: '/data/keep', kind: 'dir', content: '' },
    ]);
  });
  it('rows outside every writable root are left alone (they are read-only anyway)', () => {
    const p = sandboxPolicy(input());
    expect(p.placeholders).toEqual([]);
    expect(p.readOnly).toEqual([]);
  });
  it('a workspace that does not exist (yet) is not bound', () => {
    expect(sandboxPolicy(input({ workspace: '/home/p/later' })).writable).toEqual([]);
  });
  it('a workspace inside the profile is bound again over its mask; the profile itself never is', () => {
    const inside = sandboxPolicy(
      input({
        workspace: '/home/p/.switchboard/work',
        exists: (x) => x !== '/home/p/.switchboard/work/.git',
        isDir: () => true,
      }),
    );
    expect(inside.insideProfile).toEqual(['/home/p/.switchboard/work']);
    const a = bwrapArgs(inside, { argv: ['true'], cwd: '/', newSession: true, unshareNet: false });
    expect(a.join(' ')).toContain(
      `--tmpfs /home/p/.switchboard --bind ${CACHES} ${CACHES} --bind /home/p/.switchboard/work ` +
        '/home/p/.switchboard/work --remount-ro /home/p/.switchboard',
    );
    expect(sandboxPolicy(input({ workspace: '/home/p/.switchboard', exists: () => true })).insideProfile).toEqual([]);
  });
  it('network: false', () => {
    expect(sandboxPolicy(input({ setting: { network: false } })).network).toBe(false);
  });
});

describe("browsers' profile folders", () => {
  // Their History and Sessions keep every address opened (the page's one-time link), their Cookies the person's.
  const table: Array<[browser: string, folder: string]> = [
    ['Chromium', '.config/chromium'],
    ['Chrome', '.config/google-chrome'],
    ['Chrome beta', '.config/google-chrome-beta'],
    ['Chrome dev', '.config/google-chrome-unstable'],
    ['Brave', '.config/BraveSoftware'],
    ['Edge', '.config/microsoft-edge'],
    ['Vivaldi', '.config/vivaldi'],
    ['Opera', '.config/opera'],
    ['Firefox', '.mozilla'],
    ['LibreWolf', '.librewolf'],
    ['Waterfox', '.waterfox'],
    ['Firefox (snap)', 'snap/firefox'],
    ['Chromium (snap)', 'snap/chromium'],
    ['Firefox (flatpak)', '.var/app/org.mozilla.firefox'],
    ['Chrome (flatpak)', '.var/app/com.google.Chrome'],
    ['Chromium (flatpak)', '.var/app/org.chromium.Chromium'],
    ['Brave (flatpak)', '.var/app/com.brave.Browser'],
    ['Chrome (macOS)', 'Library/Application Support/Google/Chrome'],
    ['Chromium (macOS)', 'Library/Application Support/Chromium'],
    ['Brave (macOS)', 'Library/Application Support/BraveSoftware'],
    ['Firefox (macOS)', 'Library/Application Support/Firefox'],
    ['Safari', 'Library/Safari'],
    ['cookies (macOS)', 'Library/Cookies'],
  ];
  it('the list is the table', () => {
    expect([...BROWSER_PROFILE_DIRS].sort()).toEqual(table.map(([, f]) => f).sort());
  });
  for (const [browser, folder] of table) {
    const path = `/home/p/${folder}`;
    const policy = sandboxPolicy(input({ exists: (p) => p === path || existing.has(p), isDir: (p) => p === path }));
    it(`${browser}: ~/${folder} is an empty read-only folder inside, and unreadable under Seatbelt`, () => {
      expect(policy.maskedDirs).toContainEqual({ path, keep: [] });
      const a = bwrapArgs(policy, { argv: ['true'], cwd: '/', newSession: true, unshareNet: true }).join('\n');
      expect(a).toContain(`--tmpfs\n${path}\n--remount-ro\n${path}`);
      expect(seatbeltProfile(policy)).toContain(`(deny file-read* file-write* (subpath "${path}"))`);
    });
  }
  it('a browser that is not installed masks nothing', () => {
    expect(sandboxPolicy(input()).maskedDirs.map((d) => d.path)).not.toContain('/home/p/.mozilla');
  });
});

describe('bwrapArgs', () => {
  const policy = sandboxPolicy(input({ workspace: '/home/p', setting: { network: false } }));
  const fds = new Map([
    [TMP, 3],
    ['/home/p', 4],
  ]);
  const args = bwrapArgs(
    policy,
    { argv: ['/bin/bash', '-s'], cwd: '/', newSession: true, unshareNet: true },
    { fd: (p) => fds.get(p), seccomp: 9 },
  );
  const at = (...seq: string[]): number => args.findIndex((_a, i) => seq.every((s, j) => args[i + j] === s));
  const table: Array<[string, string[]]> = [
    ['the host read-only', ['--ro-bind', '/', '/']],
    ['a fresh /dev', ['--dev', '/dev']],
    ['a fresh procfs', ['--proc', '/proc']],
    ['the private tmp, by its descriptor', ['--bind-fd', '3', '/tmp']],
    ['the workspace writable, by its descriptor', ['--bind-fd', '4', '/home/p']],
    ['a pin, by path when no descriptor was given', ['--bind', '/home/p/.config', '/home/p/.config']],
    ['the profile masked', ['--tmpfs', '/home/p/.switchboard']],
    ['the caches bound back', ['--bind', CACHES, CACHES]],
    ['the mask read-only', ['--remount-ro', '/home/p/.switchboard']],
    ['~/.ssh masked', ['--tmpfs', '/home/p/.ssh']],
    ['known_hosts kept', ['--ro-bind', '/home/p/.ssh/known_hosts', '/home/p/.ssh/known_hosts']],
    ['a credential file masked', ['--ro-bind', '/dev/null', '/home/p/.netrc']],
    ['the engine socket masked', ['--ro-bind', '/dev/null', '/run/docker.sock']],
    ['.bashrc read-only', ['--ro-bind', '/home/p/.bashrc', '/home/p/.bashrc']],
    ['a placeholder read-only', ['--ro-bind', '/home/p/.bash_aliases', '/home/p/.bash_aliases']],
    [
      'namespaces of its own, none of whose powers it keeps',
      ['--unshare-user', '--disable-userns', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net'],
    ],
    ['no capability', ['--cap-drop', 'ALL', '--die-with-parent', '--new-session']],
    ['the seccomp filter', ['--seccomp', '9']],
    ['TMPDIR', ['--setenv', 'TMPDIR', '/tmp']],
    ['the program last', ['--chdir', '/', '--', '/bin/bash', '-s']],
  ];
  for (const [what, seq] of table) it(what, () => expect(at(...seq)).toBeGreaterThanOrEqual(0));
  it('orders: tmp, the workspace, its pins, then the masks and read-only paths', () => {
    expect(at('--bind-fd', '3', '/tmp')).toBeLessThan(at('--bind-fd', '4', '/home/p'));
    expect(at('--bind-fd', '4', '/home/p')).toBeLessThan(at('--bind', '/home/p/.config', '/home/p/.config'));
    expect(at('--bind', '/home/p/.config', '/home/p/.config')).toBeLessThan(at('--tmpfs', '/home/p/.ssh'));
    // A read-only folder never shows a masked file in it again.
    expect(at('--ro-bind', '/home/p/.cargo', '/home/p/.cargo')).toBeLessThan(
      at('--ro-bind', '/dev/null', '/home/p/.netrc'),
    );
    expect(at('--bind', '/home/p/.config', '/home/p/.config')).toBeLessThan(
      at('--ro-bind', '/home/p/.config/systemd', '/home/p/.config/systemd'),
    );
    expect(at('--tmpfs', '/home/p/.ssh')).toBeLessThan(
      at('--ro-bind', '/home/p/.ssh/known_hosts', '/home/p/.ssh/known_hosts'),
    );
    expect(at('--ro-bind', '/home/p/.ssh/known_hosts', '/home/p/.ssh/known_hosts')).toBeLessThan(
      at('--remount-ro', '/home/p/.ssh'),
    );
  });
  it('a joined network and a pty run: no --unshare-net, no --new-session', () => {
    const a = bwrapArgs(sandboxPolicy(input()), { argv: ['true'], cwd: '/w', newSession: false, unshareNet: false });
    expect(a).not.toContain('--unshare-net');
    expect(a).not.toContain('--new-session');
    expect(a).toContain('--unshare-user');
    expect(a).toContain('ALL');
  });
});

describe('seatbeltProfile', () => {
  const text = seatbeltProfile(
    sandboxPolicy(input({ workspace: '/home/p', setting: { network: false, writable: ['/data'] } })),
  );
  const rules = [
    '(deny file-write*)',
    `(allow file-write* (subpath "/home/p") (subpath "/data") (subpath "${TMP}") (subpath "${CACHES}") ` +
      '(literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))',
    '(deny file-read* file-write* (subpath "/home/p/.switchboard"))',
    `(allow file-read* file-write* (subpath "${TMP}"))`,
    `(allow file-read* file-write* (subpath "${CACHES}"))`,
    '(deny file-read* file-write* (subpath "/home/p/.ssh"))',
    '(allow file-read* (literal "/home/p/.ssh/known_hosts"))',
    '(deny file-read* file-write* (literal "/home/p/.netrc"))',
    '(deny file-write* (subpath "/home/p/.bashrc"))',
    '(deny file-write* (subpath "/home/p/.bash_aliases"))',
    '(deny file-write* (subpath "/home/p/.config/fish"))',
    String.raw`(deny file-write* (regex #"/\.git/(config|hooks)(/|$)"))`,
    '(deny network*)',
  ];
  for (const r of rules) it(r, () => expect(text.split('\n')).toContain(r));
  it('denials come after the allowances they narrow', () => {
    expect(text.indexOf('(deny file-read* file-write* (subpath "/home/p/.ssh"))')).toBeGreaterThan(
      text.indexOf('(allow file-write* (subpath "/home/p")'),
    );
    expect(text.indexOf('(deny file-write* (subpath "/home/p/.bashrc"))')).toBeGreaterThan(
      text.indexOf('(allow file-write* (subpath "/home/p")'),
    );
  });
  it('quotes a path', () => {
    expect(
      seatbeltProfile(sandboxPolicy(input({ workspace: '/w/a"b', exists: (p) => p === '/w/a"b' || existing.has(p) }))),
    ).toContain('(subpath "/w/a\\"b")');
  });
  it('network on: no network rule', () => {
    expect(seatbeltProfile(sandboxPolicy(input()))).not.toContain('network');
  });
});

describe('sandboxNote', () => {
  const policy: SandboxPolicy = sandboxPolicy(
    input({ setting: { network: false }, repositories: ['/home/p/project'] }),
  );
  const table: Array<[string, number, RegExp | undefined]> = [
    [
      "touch: cannot touch '/etc/x': Read-only file system",
      1,
      new RegExp(
        String.raw`^\[sandbox: refused \(\/etc\/x: Read-only file system\); writes are allowed only in ` +
          String.raw`\/home\/p\/project, \/tmp; .*outside_sandbox: true\]$`,
      ),
    ],
    ['sh: 1: cannot create /usr/y: Read-only file system', 2, /refused \(\/usr\/y: Read-only file system\)/],
    ["OSError: [Errno 30] Read-only file system: '/opt/z'", 1, /refused \(\/opt\/z: Read-only file system\)/],
    [
      'cat: /home/p/.switchboard/core.json: No such file or directory',
      1,
      /^\[sandbox: \/home\/p\/\.switchboard is hidden from agent work/,
    ],
    ['cat: /home/p/.ssh/id_ed25519: No such file or directory', 1, /\/home\/p\/\.ssh is hidden/],
    ['curl: (6) Could not resolve host: example.com', 6, /no network \(sandbox\.network: false\)/],
    ['rm: cannot remove /home/p/project/f: Permission denied', 1, undefined],
    [
      "mkdir: cannot create directory '/home/p/project/.git/hooks/x': Read-only file system",
      1,
      /^\[sandbox: \/home\/p\/project\/\.git\/hooks stays read-only: it is in the deny-write table/,
    ],
    ['all fine', 0, undefined],

    ["touch: cannot touch '/etc/x': Read-only file system", 0, undefined],
    ['grep: no match', 1, undefined],
  ];
  it("a refused loopback port says the host's services are not in the sandbox's network", () => {
    const networked = sandboxPolicy(input());
    expect(
      sandboxNote(
        "curl: (7) Failed to connect to 127.0.0.1 port 5432 after 0 ms: Couldn't connect to server",
        7,
        networked,
      ),
    ).toMatch(/loopback services are not reachable.*add 5432 to the target's sandbox\.allow_local_ports/);
    expect(sandboxNote('Error: connect ECONNREFUSED 127.0.0.1:6379', 1, networked)).toMatch(/add 6379 to/);
    expect(sandboxNote('Error: connect ECONNREFUSED 127.0.0.1:6379', 1, policy)).toBeUndefined();
  });
  it('a connection the proxy refused is named', () => {
    expect(sandboxNote('curl: (56) CONNECT tunnel failed, response 403', 56, policy, ['10.0.0.5:80 (private)'])).toBe(
      '[sandbox: the network refused 10.0.0.5:80 (private)]',
    );
  });
  for (const [output, code, want] of table) {
    it(`${JSON.stringify(output)} (${code})`, () => {
      const note = sandboxNote(output, code, policy);
      if (want) expect(note).toMatch(want);
      else expect(note).toBeUndefined();
    });
  }
});

describe('parsing', () => {
  it('NSpid / NSpgid lines', () => {
    const status = 'Name:\tbash\nNStgid:\t4121\t3\nNSpid:\t4121\t3\nNSpgid:\t4120\t2\nNSsid:\t4119\t1\n';
    expect(namespaceIds(status, 'NSpid')).toEqual([4121, 3]);
    expect(namespaceIds(status, 'NSpgid')).toEqual([4120, 2]);
    expect(namespaceIds('Name:\tx\n', 'NSpid')).toEqual([]);
  });
});

describe('Sandbox.spawn', () => {
  const profile = realpathSync(mkdtempSync(join(tmpdir(), 'sb-sandbox-cmd-')));
  afterAll(() => rmSync(profile, { recursive: true, force: true }));
  const target = { setting: undefined, workspace: profile, profile, id: 'x', cachesId: 'c' };
  it('the exports file is in the private /tmp inside; the tmp and the caches are the Core folders', () => {
    const s = Sandbox.for(target, async () => undefined, { ok: true, kind: 'bubblewrap' });
    if (!(s instanceof Sandbox)) throw new Error('expected a sandbox');
    s.prepare();
    expect(existsSync(join(profile, 'state', 'sandbox', 'x', 'tmp'))).toBe(true);
    expect(existsSync(join(profile, 'state', 'caches', 'c'))).toBe(true);
    expect(s.envFile).toBe('/tmp/.switchboard/exports.sh');
    expect(s.env()).toMatchObject({ TMPDIR: '/tmp', XDG_CACHE_HOME: join(profile, 'state', 'caches', 'c', 'xdg') });
  });
  it('seatbelt: the exports file and TMPDIR are the host path of the private tmp', () => {
    const s = Sandbox.for(target, async () => undefined, { ok: true, kind: 'seatbelt' });
    if (!(s instanceof Sandbox)) throw new Error('expected a sandbox');
    expect(s.envFile).toBe(join(profile, 'state', 'sandbox', 'x', 'tmp', '.switchboard', 'exports.sh'));
    expect(s.env().TMPDIR).toBe(join(profile, 'state', 'sandbox', 'x', 'tmp'));
  });
  it('none: off in the spec, or nothing that runs here', () => {
    expect(Sandbox.for({ ...target, setting: 'off' }, async () => undefined, { ok: true, kind: 'bubblewrap' })).toEqual(
      { unsandboxed: 'sandbox: off in its spec' },
    );
    expect(Sandbox.for(target, async () => undefined, { ok: false, reason: 'no bwrap' })).toEqual({
      unsandboxed: 'no bwrap',
    });
  });
});

describe('sandboxAvailability', () => {
  it('without bwrap on the PATH: unsandboxed, and says why; SWITCHBOARD_NO_SANDBOX says its reason', () => {
    const path = process.env.PATH;
    try {
      process.env.PATH = '/nonexistent';
      resetSandboxAvailability();
      expect(sandboxAvailability()).toEqual(
        process.platform === 'linux' ? { ok: false, reason: 'bubblewrap (bwrap) is not installed' } : expect.anything(),
      );
      process.env.PATH = path;
      process.env.SWITCHBOARD_NO_SANDBOX = 'a test';
      resetSandboxAvailability();
      expect(sandboxAvailability()).toEqual({ ok: false, reason: 'SWITCHBOARD_NO_SANDBOX is set (a test)' });
    } finally {
      process.env.PATH = path;
      delete process.env.SWITCHBOARD_NO_SANDBOX;
      resetSandboxAvailability();
    }
  });
});

describe('the setting and what it says', () => {
  const table: Array<[unknown, boolean, string?]> = [
    ['off', true],
    [{}, true],
    [{ mode: 'workspace', writable: ['~/.cache'], network: false }, true],
    [{ allow_local_ports: [5432], allow_hosts: ['*.npmjs.org', 'pypi.org'], deny_write: ['~/notes'] }, true],
    [{ max_processes: 512, max_memory_mb: 2048 }, true],
    [
      'of',
      false,
      'sandbox is off or { mode: workspace, writable: [paths], network: true|false, allow_local_ports: [ports], ' +
        'allow_hosts: [hosts], deny_write: [paths], max_processes: N, max_memory_mb: N }',
    ],
    [{ allow_local_ports: [0] }, false],
    [
      { allow_hosts: ['http://x'] },
      false,
      'a host is a name (example.com), a wildcard (*.example.com), an address, or * (any public host)',
    ],
    [{ allow_hosts: ['*', '10.0.0.5', 'registry.internal'] }, true],
    [{ netwrk: false }, false, 'Unrecognized key: "netwrk"'],
    [{ mode: 'everything' }, false],
    [true, false],
  ];
  for (const [value, ok, message] of table) {
    it(JSON.stringify(value), () => {
      const r = SandboxSetting.safeParse(value);
      expect(r.success).toBe(ok);
      if (message) expect(r.error?.issues[0]?.message).toBe(message);
    });
  }
  it('a misspelt key of the local spec is named', () => {
    const r = localSpec.specSchema.safeParse({ backend: 'local', sandbx: 'off' });
    expect(r.error?.issues[0]?.message).toBe('Unrecognized key: "sandbx"');
  });
  it('TargetInfo.sandbox and its line', () => {
    expect(sandboxInfo('off', { ok: true, kind: 'bubblewrap' })).toEqual({
      state: 'unsandboxed',
      reason: 'sandbox: off in its spec',
    });
    expect(sandboxInfo(undefined, { ok: false, reason: 'bubblewrap (bwrap) is not installed' })).toEqual({
      state: 'unsandboxed',
      reason: 'bubblewrap (bwrap) is not installed',
    });
    expect(sandboxInfo({ network: false }, { ok: true, kind: 'bubblewrap' })).toEqual({
      state: 'sandboxed',
      kind: 'bubblewrap',
      network: false,
    });
    expect(sandboxLine({ state: 'sandboxed', kind: 'bubblewrap', network: true })).toBe('sandboxed (bubblewrap)');
    expect(sandboxLine({ state: 'sandboxed', kind: 'bubblewrap', network: false })).toBe(
      'sandboxed (bubblewrap, no network)',
    );
    expect(sandboxLine({ state: 'unsandboxed', reason: 'sandbox: off in its spec' })).toBe(
      'unsandboxed (sandbox: off in its spec)',
    );
  });
});
