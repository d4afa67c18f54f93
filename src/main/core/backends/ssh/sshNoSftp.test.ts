// File tools on an SSH server without an sftp subsystem: a private sshd started here (a config of its own with no
// `Subsystem sftp` line, a fresh host key, the test env's user and key from scripts/env/ssh.sh), against which the
// SSH file operations fall back to commands. The shared tool suite runs on it, then what the fallback must keep:
// binary bytes, the size caps, atomic writes that keep the mode, one-line errors naming the file, doctor's note.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, startServe, tempHome } from '../../../../../scripts/cliHarness.js';
import { PrivateSshd, freePort } from '../../../../../scripts/privateSshd.js';
import { loadSshEnv, type SshTestEnv } from '../../../../../scripts/testEnv.js';
import type { DoctorReport } from '../../../../shared/api.js';
import { builtinProviders } from '../builtins.js';
import type { Environment, ProviderContext } from '../provider.js';
import {
  canMountTmpfs,
  fullDisk,
  fullDiskCase,
  readOnlyCase,
  symlinkCase,
  type FullDisk,
  describeToolsOn,
} from '../../tools/index.js';
import { makeTestCore, type TestCore } from '../../tools/testCore.js';
import { connectionPool } from './connectionPool.js';
import { sshProvider } from './sshProvider.js';

const env = loadSshEnv();
// An sshd can log another user in only when it runs as root.
const runs = env !== undefined && process.getuid?.() === 0;

// No real ~/.ssh or agent: only this file's key and host line count.
const oldHome = process.env.HOME;
const fakeHome = mkdtempSync(join(tmpdir(), 'sb-nosftp-home-'));
process.env.HOME = fakeHome;
delete process.env.SSH_AUTH_SOCK;

let started: Promise<PrivateSshd & { knownHostsLine: string }> | undefined;
/** The sftp-less sshd, started on first use and stopped (its directory removed) after the file's tests. */
function bareSshd(e: SshTestEnv): Promise<PrivateSshd & { knownHostsLine: string }> {
  started ??= (async () => {
    const sshd = PrivateSshd.ownConfig(e.user, await freePort());
    await sshd.start();
    return sshd;
  })();
  return started;
}
afterAll(async () => {
  await connectionPool.closeAll();
  if (started) (await started).dispose();
  process.env.HOME = oldHome;
  rmSync(fakeHome, { recursive: true, force: true });
});

/** An SSH environment (no Core) on 127.0.0.1:`port` as the test user; `home` holds the known_hosts that trusts it. */
function envOn(e: SshTestEnv, port: number, name: string, ctx: Omit<ProviderContext, 'resolveSpec'>): Environment {
  const spec = {
    backend: 'ssh',
    ssh_host: '127.0.0.1',
    ssh_port: port,
    ssh_user: e.user,
    ssh_key: e.key,
    sandbox: 'off',
  };
  return sshProvider.createEnvironment(
    {
      name,
      generation: 'g1',
      identity: `${name}#g1`,
      source: 'runtime',
      state: 'active',
      spec,
      flags: { ...sshProvider.flags },
      timeoutSec: 180,
    },
    { ...ctx, resolveSpec: () => undefined },
  );
}

const specFor = (e: SshTestEnv, port: number, cwd: string): string =>
  // Unsandboxed: a sandboxed target's file tools are commands anyway; here the server's missing SFTP is the point.
  `{ backend: ssh, ssh_host: 127.0.0.1, ssh_port: ${port}, ssh_user: ${e.user}, ssh_key: ${e.key}, cwd: "${cwd}", ` +
  'sandbox: off }';

describeToolsOn('ssh without an sftp subsystem', async () => {
  if (!runs) return undefined;
  const e = env as SshTestEnv;
  const sshd = await bareSshd(e);
  const base = specFor(e, sshd.port, '/tmp');
  const t = await makeTestCore(['na', 'nb'], {
    specs: { na: base, nb: base.replace('cwd: "/tmp"', 'cwd: "~"') },
    providers: builtinProviders,
    files: { known_hosts: sshd.knownHostsLine + '\n' },
  });
  const probe = await t.core.callTool(
    'terminal',
    { command: 'command -v python3 >/dev/null && echo yes || echo no', execution_target: 'na' },
    'test',
  );
  return {
    call: (tool, args) => t.core.callTool(tool, args, 'test'),
    targets: ['na', 'nb'],
    python: probe.output === 'yes\n',
    close: () => t.close(),
  };
});

(runs ? describe : describe.skip)('file tools over commands where the server has no sftp subsystem', () => {
  const e = env as SshTestEnv;
  let sshd: PrivateSshd & { knownHostsLine: string };
  let t: TestCore;
  let x: Environment;
  let work = '';
  const owner = { uid: 0, gid: 0 };
  const call = (tool: string, args: Record<string, unknown>) =>
    t.core.callTool(tool, { execution_target: 'bare', ...args }, 'test');
  const at = (name: string): string => join(work, name);
  const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  beforeAll(async () => {
    sshd = await bareSshd(e);
    owner.uid = Number(execFileSync('id', ['-u', e.user], { encoding: 'utf8' }));
    owner.gid = Number(execFileSync('id', ['-g', e.user], { encoding: 'utf8' }));
    // Under /var/tmp, which the test user may enter; its own folder, so it writes as on any host.
    work = mkdtempSync('/var/tmp/sb-nosftp-');
    chownSync(work, owner.uid, owner.gid);
    t = await makeTestCore(['bare'], {
      specs: { bare: specFor(e, sshd.port, work) },
      providers: builtinProviders,
      files: { known_hosts: sshd.knownHostsLine + '\n' },
    });
    x = envOn(e, sshd.port, 'bare-env', { home: t.home });
  }, 30_000);
  afterAll(async () => {
    await x?.cleanup('shutdown');
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('doctor notes the fallback for the target', async () => {
    const report = (await t.core.invoke('doctor.run', { timeout_ms: 10_000 })) as DoctorReport;
    expect(report.targets.find((r) => r.name === 'bare')).toMatchObject({
      ok: true,
      detail: `${e.user}@127.0.0.1:${sshd.port}; no sftp subsystem; file tools use commands`,
    });
  });

  it("switchboard doctor (the CLI, against a served Core) shows the note in the target's row", async () => {
    ensureBuilt();
    const home = tempHome('sb-nosftp-cli-');
    writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    bare: ${specFor(e, sshd.port, work)}\n`);
    writeFileSync(join(home, 'known_hosts'), sshd.knownHostsLine + '\n', { mode: 0o600 });
    const served = await startServe(home);
    try {
      const r = await runCli(home, ['doctor', '--timeout', '10']);
      const row = r.stdout.split('\n').find((l) => l.startsWith('bare '));
      expect(row).toMatch(
        new RegExp(` ok .*${escaped(`${e.user}@127.0.0.1:${sshd.port}; no sftp subsystem; file tools use commands`)}$`),
      );
    } finally {
      await served.stop();
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('write_file, read_file and patch carry any text byte for byte', async () => {
    const text =
      'it\'s "quoted" $(echo no) `no` \\back\\slash\r\nünïcødé ✓ %s %d\n\ttab\vvt\x7f\nno newline at the end';
    expect(await call('write_file', { path: 'text.txt', content: text })).toMatchObject({
      bytes_written: Buffer.byteLength(text),
    });
    expect(readFileSync(at('text.txt'), 'utf8')).toBe(text);
    expect(statSync(at('text.txt')).uid).toBe(owner.uid);
    expect(await call('patch', { path: 'text.txt', old_string: '$(echo no)', new_string: "'$HOME'" })).toMatchObject({
      replacements: 1,
    });
    expect(readFileSync(at('text.txt'), 'utf8')).toBe(text.replace('$(echo no)', "'$HOME'"));
    // A name a shell would split, expand or glob lands as named.
    const odd = "odd dir/it's $HOME * `x`.txt";
    await call('write_file', { path: odd, content: 'odd\n' });
    expect(readFileSync(at(odd), 'utf8')).toBe('odd\n');
    expect(await call('read_file', { path: odd })).toMatchObject({ content: '     1\todd\n' });
    // read_file shows lines (a CRLF ends one); the bytes were checked above.
    expect(String((await call('read_file', { path: 'text.txt', limit: 1 })).content)).toContain(
      "     1\tit's \"quoted\" '$HOME' `no` \\back\\slash",
    );
  });

  it('binary content goes both ways unchanged; read_file says a binary file is one', async () => {
    const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(300_000)]);
    await x.writeFile(at('blob.bin'), bytes);
    expect(
      createHash('sha256')
        .update(readFileSync(at('blob.bin')))
        .digest('hex'),
    ).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect((await x.readFile(at('blob.bin'), 1_000_000)).equals(bytes)).toBe(true);
    expect(await x.stat(at('blob.bin'))).toEqual({ type: 'file', size: bytes.length });
    await expect(call('read_file', { path: 'blob.bin' })).rejects.toMatchObject({
      code: 'unsupported',
      message: `${at('blob.bin')} looks like a binary file (${bytes.length} bytes)`,
    });
  });

  it('the size caps hold: read_file pages a file over 8 MB, patch and a capped read refuse it', async () => {
    const big = at('big.txt');
    writeFileSync(big, `${'z'.repeat(1023)}\n`.repeat(9 * 1024));
    await expect(x.readFile(big, 8 * 1024 * 1024)).rejects.toMatchObject({
      code: 'too_large',
      message: `${big} is ${9 * 1024 * 1024} bytes; the limit is ${8 * 1024 * 1024}`,
    });
    await expect(call('patch', { path: 'big.txt', old_string: 'zz', new_string: 'y' })).rejects.toMatchObject({
      code: 'too_large',
    });
    expect(await call('read_file', { path: 'big.txt', offset: 9000, limit: 2 })).toMatchObject({
      total_lines: 9 * 1024,
      lines_returned: 2,
    });
    // A big write still lands whole (one command, its bytes on stdin).
    const large = randomBytes(3 * 1024 * 1024);
    await x.writeFile(at('large.bin'), large);
    expect(readFileSync(at('large.bin')).equals(large)).toBe(true);
  }, 60_000);

  it('a write over an existing file replaces it whole, keeps its mode and leaves no temp file', async () => {
    const dir = at('keep');
    mkdirSync(dir);
    chownSync(dir, owner.uid, owner.gid);
    writeFileSync(join(dir, 'conf.txt'), 'old\n');
    chownSync(join(dir, 'conf.txt'), owner.uid, owner.gid);
    chmodSync(join(dir, 'conf.txt'), 0o640);
    await call('write_file', { path: 'keep/conf.txt', content: 'new\n' });
    await call('patch', { path: 'keep/conf.txt', old_string: 'new', new_string: 'newer' });
    expect(readFileSync(join(dir, 'conf.txt'), 'utf8')).toBe('newer\n');
    expect(statSync(join(dir, 'conf.txt')).mode & 0o7777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['conf.txt']);
  });

  it(
    'a folder the account may not write to: ' + 'one line naming the file; the file is unchanged, nothing is left',
    async () => {
      const dir = at('roots');
      mkdirSync(dir, { mode: 0o755 });
      writeFileSync(join(dir, 'theirs.txt'), 'root\n');
      for (const name of ['roots/theirs.txt', 'roots/sub/new.txt']) {
        await expect(call('write_file', { path: name, content: 'x' })).rejects.toMatchObject({
          code: 'bad_request',
          message: `cannot write ${at(name)}: permission denied (EACCES); the file is unchanged`,
        });
      }
      await expect(
        call('patch', { path: 'roots/theirs.txt', old_string: 'root', new_string: 'mine' }),
      ).rejects.toMatchObject({
        message: `cannot write ${at('roots/theirs.txt')}: permission denied (EACCES); the file is unchanged`,
      });
      expect(readFileSync(join(dir, 'theirs.txt'), 'utf8')).toBe('root\n');
      expect(readdirSync(dir)).toEqual(['theirs.txt']);
      // A file the account may not read: said as such, not read as garbage.
      writeFileSync(join(dir, 'secret.txt'), 'hidden\n', { mode: 0o600 });
      await expect(x.readFile(join(dir, 'secret.txt'), 1000)).rejects.toMatchObject({
        code: 'bad_request',
        message: `could not read ${join(dir, 'secret.txt')}: permission denied (EACCES)`,
      });
    },
  );

  it('a write to a directory is refused by name and puts nothing inside it', async () => {
    const dir = at('adir');
    mkdirSync(dir);
    chownSync(dir, owner.uid, owner.gid);
    await expect(call('write_file', { path: 'adir', content: 'x' })).rejects.toMatchObject({
      message: expect.stringMatching(
        new RegExp(`^cannot write ${escaped(dir)}: is a directory \\(EISDIR\\); the file is unchanged$`),
      ),
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('passed-through variables reach commands (staged by a command, not SFTP) and their file is gone', async () => {
    process.env.SB_NOSFTP_PASSED = 'passed value';
    const y = envOn(e, sshd.port, 'pass', { home: t.home, envPassthrough: () => ['SB_NOSFTP_PASSED'] });
    try {
      const r = await y.exec('printf %s "$SB_NOSFTP_PASSED"; ls ~/.cache/switchboard | grep -c "^pass-" || true', {
        cwd: '/',
        timeoutMs: 20_000,
        maxOutputChars: 10_000,
      });
      expect(r.output).toBe('passed value0\n');
    } finally {
      delete process.env.SB_NOSFTP_PASSED;
      await y.cleanup('shutdown');
    }
  });

  it('the server is asked for SFTP once per connection, not once per file operation', () => {
    const log = readFileSync(sshd.log, 'utf8');
    const logins = (log.match(/Accepted publickey for /g) ?? []).length;
    const refusals = (log.match(/subsystem request for sftp/g) ?? []).length;
    expect(refusals).toBeGreaterThanOrEqual(1);
    expect(refusals).toBeLessThanOrEqual(logins);
  });

  (canMountTmpfs() ? describe : describe.skip)('on a full or read-only disk', () => {
    let disk: FullDisk;
    let u: TestCore;
    const onDisk = (tool: string, args: Record<string, unknown>) =>
      u.core.callTool(tool, { execution_target: 'disk', ...args }, 'test');
    beforeAll(async () => {
      disk = fullDisk();
      chownSync(disk.dir, owner.uid, owner.gid);
      u = await makeTestCore(['disk'], {
        specs: { disk: specFor(e, sshd.port, disk.dir) },
        providers: builtinProviders,
        files: { known_hosts: sshd.knownHostsLine + '\n' },
      });
    });
    afterAll(async () => {
      await u?.close();
      disk?.unmount();
    });

    it(
      'a full disk: write_file and patch leave the file whole with its mode and owner, no temp file; ' +
        'the error names it',
      () => fullDiskCase(disk, onDisk, (n) => join(disk.dir, n), owner),
      60_000,
    );
    it('a read-only mount: the error names the file and says why', () =>
      readOnlyCase(disk, onDisk, (n) => join(disk.dir, n), owner));
    it('a write through a symlink replaces the file it names and keeps the link', () =>
      symlinkCase(disk, onDisk, (n) => join(disk.dir, n), owner));
  });
});

(runs ? describe : describe.skip)('servers that refuse SFTP in other ways', () => {
  const e = env as SshTestEnv;
  const made: Array<{ sshd: PrivateSshd; x: Environment }> = [];
  const homes: string[] = [];
  afterAll(async () => {
    for (const { sshd, x } of made) {
      await x.cleanup('shutdown');
      sshd.dispose();
    }
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  /** A private sshd with these config lines, and an environment on it. */
  async function serverWith(opts: { sftp?: string; lines?: string[] }): Promise<Environment> {
    const sshd = PrivateSshd.ownConfig(e.user, await freePort(), opts);
    await sshd.start();
    const home = mkdtempSync(join(tmpdir(), 'sb-nosftp-sbhome-'));
    homes.push(home);
    writeFileSync(join(home, 'known_hosts'), sshd.knownHostsLine + '\n');
    const x = envOn(e, sshd.port, `odd-${sshd.port}`, { home });
    made.push({ sshd, x });
    return x;
  }

  it(
    "two sessions per connection (MaxSessions 2): the refused subsystem's channel is closed, " +
      'so commands still open',
    async () => {
      const x = await serverWith({ lines: ['MaxSessions 2'] });
      const path = `/tmp/sb-nosftp-one-${randomBytes(4).toString('hex')}.txt`;
      try {
        for (let i = 0; i < 3; i++) {
          await x.writeFile(path, Buffer.from(`round ${i}\n`));
          expect((await x.readFile(path, 100)).toString()).toBe(`round ${i}\n`);
        }
        expect(await x.probe()).toMatchObject({
          ok: true,
          detail: expect.stringMatching(/; no sftp subsystem; file tools use commands$/),
        });
      } finally {
        rmSync(path, { force: true });
      }
    },
  );

  it(
    'calls racing on a fresh connection share one answer: ' + 'all go over commands, the server is asked once',
    async () => {
      const x = await serverWith({});
      const sshd = made[made.length - 1]!.sshd;
      const dir = `/tmp/sb-nosftp-race-${randomBytes(4).toString('hex')}`;
      try {
        await Promise.all(
          Array.from({ length: 6 }, (_, i) => x.writeFile(`${dir}/f${i}.txt`, Buffer.from(`file ${i}\n`))),
        );
        const back = await Promise.all(Array.from({ length: 6 }, (_, i) => x.readFile(`${dir}/f${i}.txt`, 100)));
        expect(back.map((b) => b.toString())).toEqual(Array.from({ length: 6 }, (_, i) => `file ${i}\n`));
        expect((readFileSync(sshd.log, 'utf8').match(/subsystem request for sftp/g) ?? []).length).toBe(1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('a subsystem configured but not installed (its server exits at once) is no SFTP too', async () => {
    const x = await serverWith({ sftp: '/nonexistent/sftp-server' });
    const path = `/tmp/sb-nosftp-gone-${randomBytes(4).toString('hex')}.txt`;
    try {
      await x.writeFile(path, Buffer.from('written\n'));
      expect(readFileSync(path, 'utf8')).toBe('written\n');
      expect(await x.probe()).toMatchObject({
        ok: true,
        detail: expect.stringMatching(/; no sftp subsystem; file tools use commands$/),
      });
    } finally {
      rmSync(path, { force: true });
    }
  });
});
