// Integration tests of the SSH backend against the loopback sshds of scripts/env/ssh.sh.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSshEnv, type SshTestEnv } from '../../../../../scripts/testEnv.js';
import { PrivateSshd, freePort } from '../../../../../scripts/privateSshd.js';
import type { TargetSpec } from '../../../../shared/targets.js';
import type { SshSpec } from './fields.js';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { Environment, ExecOptions, HostKeyRequest, ProviderContext, TargetSnapshot } from '../provider.js';
import { configureSshPool, connectionPool } from './connectionPool.js';
import { remoteEnvFile, sshProvider } from './sshProvider.js';

const env = loadSshEnv();

// A private HOME (no real ~/.ssh/known_hosts or config) and no agent: only what the tests set up counts.
const fakeHome = mkdtempSync(join(tmpdir(), 'sb-ssh-home-'));
process.env.HOME = fakeHome;
delete process.env.SSH_AUTH_SOCK;
const sbHome = mkdtempSync(join(tmpdir(), 'sb-ssh-sbhome-'));

type Decision = 'trust_always' | 'trust_once' | 'reject';

function snapshot(name: string, spec: TargetSpec, strip: string[] = []): TargetSnapshot {
  return {
    name,
    generation: 'g1',
    identity: `${name}#g1`,
    source: 'runtime',
    state: 'active',
    spec,
    flags: { ...sshProvider.flags, strip_env_keys: strip },
    timeoutSec: 180,
  };
}

describe.skipIf(!env)('SSH backend against a loopback sshd', () => {
  const e = env as SshTestEnv;
  const specs: Record<string, TargetSpec> = {};
  const reach: Array<[string, string | undefined]> = [];
  const open: Environment[] = [];

  const baseSpec = (extra: Partial<SshSpec> = {}): SshSpec => ({
    backend: 'ssh',
    ssh_host: e.host,
    ssh_port: e.port,
    ssh_user: e.user,
    ssh_key: e.key,
    ...extra,
  });

  function ctxFor(home: string, confirm?: (r: HostKeyRequest) => Promise<Decision>): ProviderContext {
    return {
      home,
      resolveSpec: (n) => specs[n],
      ...(confirm ? { confirmHostKey: confirm } : {}),
      reportReachability: (identity, problem) => void reach.push([identity, problem]),
    };
  }

  function envFor(
    name: string,
    spec: TargetSpec,
    opts: { home?: string; confirm?: (r: HostKeyRequest) => Promise<Decision>; strip?: string[] } = {},
  ): Environment {
    specs[name] = spec;
    const environment = sshProvider.createEnvironment(
      snapshot(name, spec, opts.strip),
      ctxFor(opts.home ?? sbHome, opts.confirm),
    );
    open.push(environment);
    return environment;
  }

  /** The basename of an identity's exports file in the remote ~/.cache/switchboard. */
  const envFileName = (name: string): string => remoteEnvFile(`${name}#g1`, sbHome).split('/').pop()!;
  const run = (o: Partial<ExecOptions> = {}): ExecOptions => ({
    cwd: '/tmp',
    timeoutMs: 20_000,
    maxOutputChars: 100_000,
    ...o,
  });
  const accepted = (log: string): number => (readFileSync(log, 'utf8').match(/Accepted publickey for /g) ?? []).length;

  async function closeAll(): Promise<void> {
    await Promise.all(open.splice(0).map((x) => x.cleanup('shutdown')));
    await connectionPool.closeAll();
  }

  beforeAll(() => {
    configureSshPool({ releaseGraceMs: 0 });
    writeFileSync(join(sbHome, 'known_hosts'), `${e.knownHostsLine}\n${e.jumpKnownHostsLine}\n`);
  });
  afterAll(async () => {
    await closeAll();
    rmSync(fakeHome, { recursive: true, force: true });
    rmSync(sbHome, { recursive: true, force: true });
  });
  beforeEach(() => {
    reach.length = 0;
  });

  describe('commands', () => {
    it('runs commands with exit codes, merged stderr, stdin, env and home', async () => {
      const x = envFor('cmd', baseSpec(), { strip: ['SB_SECRET'] });
      expect(await x.home()).toBe(`/home/${e.user}`);
      const r = await x.exec('echo out; echo err >&2; exit 3', run());
      expect(r).toMatchObject({ output: 'out\nerr\n', exitCode: 3, cwd: '/tmp', timedOut: false, truncated: false });
      expect((await x.exec('cat', run({ stdin: 'from stdin' }))).output).toBe('from stdin');
      const envRun = await x.exec(
        'echo "$SB_A|${SB_SECRET:-none}|$(whoami)"',
        run({ env: { SB_A: "it's", SB_SECRET: 'x' } }),
      );
      expect(envRun.output).toBe(`it's|none|${e.user}\n`);
      expect((await x.exec('kill -TERM $$', run())).exitCode).toBe(143);
      expect(reach).toContainEqual(['cmd#g1', undefined]);
    });

    it(
      'sends only passed-through Core variables, ' + 'through a private file it deletes, on every kind of process',
      async () => {
        const value = `passed-${Date.now()}`;
        process.env.SB_TEST_PASSED_TOKEN = value;
        process.env.SB_TEST_OTHER_TOKEN = 'withheld';
        try {
          const specEnv = sshProvider.createEnvironment(snapshot('pass', baseSpec()), {
            ...ctxFor(sbHome),
            envPassthrough: () => ['SB_TEST_PASSED_TOKEN'],
          });
          open.push(specEnv);
          const r = await specEnv.exec('echo "[$SB_TEST_PASSED_TOKEN][${SB_TEST_OTHER_TOKEN-none}]"', run());
          expect(r.output).toBe(`[${value}][none]\n`);
          const bg = await specEnv.spawnBackground('echo "[$SB_TEST_PASSED_TOKEN]"', { cwd: '/tmp' });
          let out = '';
          bg.onData((d) => (out += d));
          await new Promise<void>((resolve) => bg.onExit(() => resolve()));
          expect(out).toBe(`[${value}]\n`);
          const sh = await specEnv.openShell({ cwd: '/tmp', cols: 120, rows: 20 });
          let seen = '';
          sh.onData((d) => (seen += d));
          sh.write('echo "<$SB_TEST_PASSED_TOKEN>"; exit\n');
          await new Promise<void>((resolve) => sh.onExit(() => resolve()));
          expect(seen).toContain(`<${value}>`);
          // Each staged file was read and deleted; the directory stays private.
          expect(
            (
              await specEnv.exec(
                'ls -A ~/.cache/switchboard | grep -c "^pass-" ; stat -c %a ~/.cache/switchboard',
                run(),
              )
            ).output,
          ).toBe('0\n700\n');
        } finally {
          delete process.env.SB_TEST_PASSED_TOKEN;
          delete process.env.SB_TEST_OTHER_TOKEN;
        }
      },
    );

    it('catches the exit status of instant commands (status in the same packets as the channel reply)', async () => {
      const x = envFor('instant', baseSpec());
      for (let i = 0; i < 40; i++)
        expect(await x.probe()).toEqual({ ok: true, detail: `${e.user}@${e.host}:${e.port}` });
    });

    it('keeps cwd and exports per identity, on one shared connection', async () => {
      await closeAll();
      // Unsandboxed: the exports file's place on the host is what is looked at (a sandbox keeps it in its private
      // /tmp: sshSandbox.test.ts).
      const a = envFor('iso-a', { ...baseSpec(), sandbox: 'off' } as TargetSpec);
      const b = envFor('iso-b', { ...baseSpec(), sandbox: 'off' } as TargetSpec);
      const home = await a.home();
      const iso = `/tmp/sb-iso-${randomBytes(4).toString('hex')}`;
      const ra = await a.exec(`mkdir -p ${iso} && cd ${iso} && export SB_ISO=a`, run({ cwd: home }));
      expect(ra.cwd).toBe(iso);
      // The caller keeps cwd state and passes it back; b was never told to move.
      const rb = await b.exec('pwd; echo "[${SB_ISO:-}]"', run({ cwd: home }));
      expect(rb).toMatchObject({ output: `${home}\n[]\n`, cwd: home });
      const ra2 = await a.exec('pwd; echo "[$SB_ISO]"', run({ cwd: ra.cwd }));
      expect(ra2.output).toBe(`${iso}\n[a]\n`);
      const slots = connectionPool.stats().filter((s) => s.key === `${e.user}@${e.host}:${e.port}`);
      expect(slots).toEqual([{ key: `${e.user}@${e.host}:${e.port}`, holders: 2, connected: true, connects: 1 }]);
      // The env file lives in the user's own ~/.cache/switchboard (0700) under a hash of the identity, mode 0600,
      // and belongs to this identity alone: b has none.
      const files = await a.exec('ls ~/.cache/switchboard', run());
      const mine = files.output
        .trim()
        .split('\n')
        .filter((f) => f === envFileName('iso-a'));
      expect(mine).toEqual([envFileName('iso-a')]);
      expect(files.output).not.toContain(envFileName('iso-b'));
      const mode = await a.exec(
        `stat -c '%a %U' ~/.cache/switchboard ~/.cache/switchboard/${envFileName('iso-a')}`,
        run(),
      );
      expect(mode.output).toBe(`700 ${e.user}\n600 ${e.user}\n`);
    });

    it('falls back to the nearest existing parent of a missing cwd and expands ~', async () => {
      const x = envFor('cwd', baseSpec());
      expect((await x.exec('pwd', run({ cwd: '/tmp/no/such/dir' }))).output).toBe(
        '[the cwd /tmp/no/such/dir no longer exists; running in /tmp]\n/tmp\n',
      );
      expect((await x.exec('pwd', run({ cwd: '~' }))).output).toBe(`/home/${e.user}\n`);
    });

    it('on timeout kills the remote process group and says so', async () => {
      const x = envFor('timeout', baseSpec());
      // Returning at all proves the kill: the sleeps would outlast the test's timeout by far.
      const r = await x.exec('echo started; sleep 1000.25 & sleep 1000.5; echo never', run({ timeoutMs: 1000 }));
      expect(r.exitCode).toBe(124);
      expect(r.timedOut).toBe(true);
      // As on the local backend: what was printed, then the note on a line of its own.
      expect(r.output.startsWith('started\n')).toBe(true);
      expect(r.output.endsWith('\n[timed out after 1s]')).toBe(true);
      const left = await x.exec("ps -eo stat=,args= | grep -E '[s]leep 1000\\.(25|5)' | grep -v '^Z' | wc -l", run());
      expect(left.output.trim()).toBe('0');
    });

    it('stops a command when the caller aborts', async () => {
      const x = envFor('abort', baseSpec());
      const ac = new AbortController();
      // Late enough for the first call's sandbox probe and start on a busy machine: the sleep has begun.
      setTimeout(() => ac.abort(), 2500);
      const r = await x.exec('sleep 1000.75', run({ signal: ac.signal }));
      expect(r.timedOut).toBe(false);
      expect(r.exitCode).not.toBe(0);
      const left = await x.exec("ps -eo stat=,args= | grep '[s]leep 1000.75' | grep -v '^Z' | wc -l", run());
      expect(left.output.trim()).toBe('0');
    });

    it('caps output, keeping head and tail', async () => {
      const x = envFor('cap', baseSpec());
      const r = await x.exec('seq 1 100000', run({ maxOutputChars: 1000 }));
      expect(r.truncated).toBe(true);
      expect(r.output.startsWith('1\n2\n3\n')).toBe(true);
      expect(r.output.endsWith('99999\n100000\n')).toBe(true);
      expect(r.output).toMatch(/chars of output cut/);
      expect(r.output.length).toBeLessThan(1100);
    });

    it('50 sequential execs use one connection (one accepted login in the sshd log)', async () => {
      await closeAll();
      const logBefore = readFileSync(e.log, 'utf8').length;
      const x = envFor('reuse', baseSpec());
      const clientPorts = new Set<string>();
      const started = Date.now();
      for (let i = 0; i < 50; i++) {
        const r = await x.exec(`echo ${i} $SSH_CONNECTION`, run());
        const [n, , clientPort] = r.output.trim().split(' ');
        expect(n).toBe(String(i));
        clientPorts.add(clientPort as string);
      }
      const ms = Date.now() - started;
      expect(clientPorts.size).toBe(1);
      // sshd writes its log on its own schedule; give it a moment. Other suites may log in meanwhile,
      // so count the logins from our client port.
      await new Promise((r) => setTimeout(r, 200));
      const newLog = readFileSync(e.log, 'utf8').slice(logBefore);
      const ours = (
        newLog.match(
          new RegExp(`Accepted publickey for ${e.user} from 127\\.0\\.0\\.1 port ${[...clientPorts][0]} `, 'g'),
        ) ?? []
      ).length;
      const all = (newLog.match(/Accepted publickey for /g) ?? []).length;
      console.log(
        `[ssh] 50 sequential execs: ${ms} ms (${(ms / 50).toFixed(1)} ms each); ` +
          `accepted logins from our client port: ${ours} (all clients: ${all})`,
      );
      expect(ours).toBe(1);
    });
  });

  describe('panes and background processes', () => {
    it('opens a pty shell in cwd that echoes, resizes and exits', async () => {
      const x = envFor('pty', baseSpec());
      const sh = await x.openShell({ cwd: '/tmp', cols: 80, rows: 24 });
      let out = '';
      sh.onData((d) => (out += d));
      const exited = new Promise<[number | null, string | undefined]>((resolve) =>
        sh.onExit((c, r) => resolve([c, r])),
      );
      const waitFor = async (re: RegExp): Promise<void> => {
        await vi.waitFor(() => expect(out).toMatch(re), { timeout: 10_000, interval: 50 });
      };
      sh.write('echo "T=$TERM"; stty size; pwd\n');
      await waitFor(/T=xterm-256color/);
      await waitFor(/\r?\n24 80\r?\n/);
      await waitFor(/\r?\n\/tmp\r?\n/);
      sh.resize(100, 40);
      sh.write('stty size\n');
      await waitFor(/40 100\r?\n/);
      sh.write('exit 0\n');
      expect(await exited).toEqual([0, undefined]);
    });

    it("runs the target's shell as the pane's remote command, or says in one line that the host lacks it", async () => {
      const ranToEnd = async (name: string, shell: string): Promise<{ out: string; code: number | null }> => {
        const sh = await envFor(name, baseSpec({ shell })).openShell({ cwd: '/tmp', cols: 80, rows: 24 });
        let out = '';
        sh.onData((d) => (out += d));
        const code = await new Promise<number | null>((resolve) => sh.onExit((c) => resolve(c)));
        return { out, code };
      };
      const ran = await ranToEnd('own-shell', `/bin/sh -c 'echo "zero=$0 cwd=$(pwd)"; exit 3'`);
      expect(ran.out).toContain('zero=/bin/sh cwd=/tmp');
      expect(ran.code).toBe(3);
      const missing = await ranToEnd('no-fish', '/usr/bin/no-such-fish -l');
      expect(missing.out.trim()).toBe('shell /usr/bin/no-such-fish not found on no-fish');
      expect(missing.code).toBe(127);
    });

    it('runs a background process with stdin, output and a group kill', async () => {
      const x = envFor('bg', baseSpec());
      const h = await x.spawnBackground(
        'echo "in $(pwd)"; read line; echo "got:$line"; sleep 1000.125 & sleep 1000.375',
        { cwd: '/tmp' },
      );
      let out = '';
      h.onData((d) => (out += d));
      const exited = new Promise<number | null>((resolve) => h.onExit((c) => resolve(c)));
      await vi.waitFor(() => expect(out).toBe('in /tmp\n'), { timeout: 10_000 });
      h.write('hello\n');
      await vi.waitFor(() => expect(out).toContain('got:hello'), { timeout: 10_000 });
      await h.kill();
      await exited;
      const left = await x.exec(
        "ps -eo stat=,args= | grep -E '[s]leep 1000\\.(125|375)' | grep -v '^Z' | wc -l",
        run(),
      );
      expect(left.output.trim()).toBe('0');
      expect(() => h.write('late\n')).toThrow(SwitchboardError);
    });
  });

  describe('files over SFTP', () => {
    it('writes (making parents), reads and stats', async () => {
      const x = envFor('files', baseSpec());
      const dir = `/tmp/sb-sftp-${randomBytes(4).toString('hex')}`;
      const path = `${dir}/a/b/c.txt`;
      const data = Buffer.from('héllo\nwörld\n');
      await x.writeFile(path, data);
      expect((await x.readFile(path, 1000)).equals(data)).toBe(true);
      expect(await x.stat(path)).toEqual({ type: 'file', size: data.length });
      expect(await x.stat(`${dir}/a`)).toMatchObject({ type: 'directory' });
      expect(await x.stat(`${dir}/missing`)).toEqual({ type: 'missing', size: 0 });
      await x.writeFile(path, Buffer.from('short'));
      expect((await x.readFile(path, 1000)).toString()).toBe('short');
      await expect(x.readFile(path, 2)).rejects.toMatchObject({ code: 'too_large' });
      await expect(x.readFile(`${dir}/a`, 1000)).rejects.toMatchObject({ code: 'bad_request' });
      await expect(x.readFile(`${dir}/nope`, 1000)).rejects.toMatchObject({ code: 'bad_request' });
      await expect(x.writeFile('/root/forbidden/x.txt', data)).rejects.toMatchObject({ code: 'bad_request' });
      // Same connection as commands: the shell sees the file.
      expect((await x.exec(`cat ${path}`, run())).output).toBe('short');
      await x.exec(`rm -rf ${dir}`, run());
    });
  });

  describe('host keys', () => {
    const freshHome = (): string => mkdtempSync(join(tmpdir(), 'sb-ssh-hk-'));

    beforeEach(async () => {
      await closeAll();
      rmSync(join(fakeHome, '.ssh'), { recursive: true, force: true });
    });

    it('refuses an unknown key without a prompt, naming the fingerprint', async () => {
      const x = envFor('hk-none', baseSpec(), { home: freshHome() });
      const err = await x.exec('true', run()).catch((er: unknown) => er);
      expect(err).toBeInstanceOf(SwitchboardError);
      expect(err).toMatchObject({ code: 'host_key_unknown' });
      expect(`${(err as SwitchboardError).message} ${(err as SwitchboardError).hint}`).toContain(e.fingerprint);
      // The server is up: a probe says so, and that the first real connection will ask about its key.
      expect(await x.probe()).toMatchObject({ ok: true, detail: expect.stringContaining('host key not trusted yet') });
    });

    it('asks with the SHA256 fingerprint; reject refuses', async () => {
      const confirm = vi.fn(async () => 'reject' as const);
      const x = envFor('hk-reject', baseSpec(), { home: freshHome(), confirm });
      await expect(x.exec('true', run())).rejects.toMatchObject({ code: 'host_key_unknown' });
      expect(confirm).toHaveBeenCalledTimes(1);
      expect(confirm).toHaveBeenCalledWith(
        { target: 'hk-reject', host: e.host, port: e.port, keyType: 'ssh-ed25519', fingerprint: e.fingerprint },
        expect.any(AbortSignal),
      );
    });

    it('trust_once trusts this connection only', async () => {
      const home = freshHome();
      const confirm = vi.fn(async () => 'trust_once' as const);
      const x = envFor('hk-once', baseSpec(), { home, confirm });
      expect((await x.exec('echo ok', run())).output).toBe('ok\n');
      expect((await x.exec('echo again', run())).output).toBe('again\n');
      expect(confirm).toHaveBeenCalledTimes(1);
      expect(existsSync(join(home, 'known_hosts'))).toBe(false);
      await closeAll();
      const y = envFor('hk-once', baseSpec(), { home, confirm });
      await y.exec('true', run());
      expect(confirm).toHaveBeenCalledTimes(2);
    });

    it('trust_always stores the key and does not ask again', async () => {
      const home = freshHome();
      const confirm = vi.fn(async () => 'trust_always' as const);
      const x = envFor('hk-always', baseSpec(), { home, confirm });
      expect((await x.exec('echo ok', run())).output).toBe('ok\n');
      expect(confirm).toHaveBeenCalledTimes(1);
      const stored = readFileSync(join(home, 'known_hosts'), 'utf8');
      expect(stored).toBe(`${e.knownHostsLine}\n`);
      await closeAll();
      const y = envFor('hk-always2', baseSpec(), { home, confirm });
      expect((await y.exec('echo ok', run())).output).toBe('ok\n');
      expect(confirm).toHaveBeenCalledTimes(1);
    });

    it('accepts a hashed [host]:port entry in ~/.ssh/known_hosts', async () => {
      const salt = randomBytes(20);
      const hash = createHmac('sha1', salt).update(`[${e.host}]:${e.port}`).digest('base64');
      const keyPart = e.knownHostsLine.split(' ').slice(1).join(' ');
      mkdirSync(join(fakeHome, '.ssh'), { recursive: true });
      writeFileSync(join(fakeHome, '.ssh', 'known_hosts'), `|1|${salt.toString('base64')}|${hash} ${keyPart}\n`);
      const confirm = vi.fn(async () => 'reject' as const);
      const x = envFor('hk-hashed', baseSpec(), { home: freshHome(), confirm });
      expect((await x.exec('echo ok', run())).output).toBe('ok\n');
      expect(confirm).not.toHaveBeenCalled();
    });

    it('refuses a changed key with a MITM warning and no key material', async () => {
      const home = freshHome();
      const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
      const type = Buffer.from('ssh-ed25519');
      const blob = Buffer.concat([u32(type.length), type, u32(other.length), other]);
      writeFileSync(join(home, 'known_hosts'), `[${e.host}]:${e.port} ssh-ed25519 ${blob.toString('base64')}\n`);
      const confirm = vi.fn(async () => 'trust_always' as const);
      const x = envFor('hk-changed', baseSpec(), { home, confirm });
      const err = (await x.exec('true', run()).catch((er: unknown) => er)) as SwitchboardError;
      expect(err).toMatchObject({ code: 'host_key_changed' });
      expect(err.message).toMatch(/man-in-the-middle/);
      expect(err.message).toContain(e.fingerprint);
      expect(err.message + (err.hint ?? '')).not.toContain(blob.toString('base64'));
      expect(err.message + (err.hint ?? '')).not.toContain(e.knownHostsLine.split(' ')[2]);
      expect(confirm).not.toHaveBeenCalled();
    });
  });

  describe('connection failures', () => {
    let port = 0;
    let sshd: PrivateSshd;
    const startSshd = (): Promise<void> => sshd.start();
    const stopSshd = (): void => sshd.stop();

    beforeAll(async () => {
      await closeAll();
      port = await freePort();
      sshd = new PrivateSshd(e.config, port);
      const keyPart = e.knownHostsLine.split(' ').slice(1).join(' ');
      writeFileSync(
        join(sbHome, 'known_hosts'),
        `${e.knownHostsLine}\n${e.jumpKnownHostsLine}\n[${e.host}]:${port} ${keyPart}\n`,
      );
    });
    afterAll(() => stopSshd());

    it('a host that is down fails fast with one clear error naming host:port', async () => {
      const x = envFor('down', baseSpec({ ssh_port: port }));
      const err = (await x.exec('true', run()).catch((er: unknown) => er)) as SwitchboardError;
      expect(err).toMatchObject({ code: 'target_unreachable' });
      expect(err.message).toContain(`${e.host}:${port}`);
      // Refused at once, not waited out until a connect timeout.
      expect(err.message).not.toMatch(/timed out/);
      const probe = await x.probe();
      expect(probe.ok).toBe(false);
      expect(probe.ok === false && probe.problem).toContain(`${e.host}:${port}`);
      expect(reach.some(([id, p]) => id === 'down#g1' && p?.includes(`${e.host}:${port}`))).toBe(true);
    });

    it('sshd killed mid-command: the call fails, not hangs; after a restart the next call reconnects', async () => {
      await startSshd();
      const x = envFor('drop', baseSpec({ ssh_port: port }));
      expect(await x.probe()).toEqual({ ok: true, detail: `${e.user}@${e.host}:${port}` });
      const shell = await x.openShell({ cwd: '/tmp', cols: 80, rows: 24 });
      const shellExit = new Promise<[number | null, string | undefined]>((resolve) =>
        shell.onExit((c, r) => resolve([c, r])),
      );
      const pending = x.exec('sleep 30', run({ timeoutMs: 60_000 }));
      await new Promise((r) => setTimeout(r, 500));
      stopSshd();
      // An error, not the 60 s timeout's exit 124: the call failed when the connection did.
      const err = (await pending.catch((er: unknown) => er)) as SwitchboardError;
      expect(err).toBeInstanceOf(SwitchboardError);
      expect(err.code).toBe('target_unreachable');
      expect(err.message).toContain(`${e.host}:${port}`);
      expect(await shellExit).toEqual([null, 'connection lost']);
      expect(reach.some(([id, p]) => id === 'drop#g1' && p !== undefined)).toBe(true);

      await startSshd();
      reach.length = 0;
      expect((await x.exec('echo back', run())).output).toBe('back\n');
      expect(reach).toContainEqual(['drop#g1', undefined]);
    });
  });

  describe('routes', () => {
    beforeAll(async () => {
      await closeAll();
    });

    it('hops through a jump host (ssh_jump)', async () => {
      specs.jumpbox = baseSpec({ ssh_port: e.jumpPort });
      const before = accepted(e.jumpLog);
      const x = envFor('behind', baseSpec({ ssh_jump: 'jumpbox' }));
      const r = await x.exec('echo "via jump"; echo "$SSH_CONNECTION" | cut -d" " -f4', run());
      expect(r.output).toBe(`via jump\n${e.port}\n`);
      await new Promise((res) => setTimeout(res, 200));
      expect(accepted(e.jumpLog) - before).toBe(1);
      const keys = connectionPool.stats().map((s) => s.key);
      expect(keys).toContain(`${e.user}@${e.host}:${e.jumpPort} -> ${e.user}@${e.host}:${e.port}`);
      expect(keys).toContain(`${e.user}@${e.host}:${e.jumpPort}`);
      // Files go through the same hop.
      const jumpFile = `/tmp/sb-jump-${randomBytes(4).toString('hex')}.txt`;
      await x.writeFile(jumpFile, Buffer.from('j'));
      expect((await x.readFile(jumpFile, 10)).toString()).toBe('j');
      await x.cleanup('removed');
      await vi.waitFor(() =>
        expect(connectionPool.stats().filter((s) => s.key.includes(String(e.jumpPort)))).toEqual([]),
      );
    });

    it('follows a ProxyJump from an Included file of ~/.ssh/config, each hop resolved through the config', async () => {
      mkdirSync(join(fakeHome, '.ssh', 'conf.d'), { recursive: true });
      writeFileSync(join(fakeHome, '.ssh', 'config'), 'Include conf.d/*\n');
      writeFileSync(
        join(fakeHome, '.ssh', 'conf.d', 'lab'),
        [
          'Host sb-bastion',
          `  HostName ${e.host}`,
          `  Port ${e.jumpPort}`,
          `  User ${e.user}`,
          `  IdentityFile ${e.key}`,
          'Host sb-inner',
          `  HostName ${e.host}`,
          `  Port ${e.port}`,
          `  User ${e.user}`,
          `  IdentityFile ${e.key}`,
          '  ProxyJump sb-bastion',
          '',
        ].join('\n'),
      );
      const before = accepted(e.jumpLog);
      const x = envFor('inner-by-config', { backend: 'ssh', ssh_host: 'sb-inner' });
      expect((await x.exec('echo "$SSH_CONNECTION" | cut -d" " -f4', run())).output).toBe(`${e.port}\n`);
      await new Promise((res) => setTimeout(res, 200));
      expect(accepted(e.jumpLog) - before).toBe(1);
      expect(connectionPool.stats().map((s) => s.key)).toContain(
        `${e.user}@${e.host}:${e.jumpPort} -> ${e.user}@${e.host}:${e.port}`,
      );
      await x.cleanup('removed');
      rmSync(join(fakeHome, '.ssh', 'config'));
      rmSync(join(fakeHome, '.ssh', 'conf.d'), { recursive: true, force: true });
    });

    it('honours a Host alias in ~/.ssh/config', async () => {
      mkdirSync(join(fakeHome, '.ssh'), { recursive: true });
      writeFileSync(
        join(fakeHome, '.ssh', 'config'),
        `Host sb-alias\n  HostName ${e.host}\n  Port ${e.port}\n  User ${e.user}\n  IdentityFile ${e.key}\n`,
      );
      const x = envFor('alias', { backend: 'ssh', ssh_host: 'sb-alias' });
      expect((await x.exec('whoami', run())).output).toBe(`${e.user}\n`);
      rmSync(join(fakeHome, '.ssh', 'config'));
    });

    it('reports a missing key file as bad_config without touching the network', async () => {
      await closeAll();
      const x = envFor('nokey', baseSpec({ ssh_key: '/nonexistent/key' }));
      await expect(x.exec('true', run())).rejects.toMatchObject({ code: 'bad_config' });
    });

    it('multiplexes parallel commands on the one connection', async () => {
      await closeAll();
      const x = envFor('parallel', baseSpec());
      const outs = await Promise.all(Array.from({ length: 8 }, (_, i) => x.exec(`sleep 0.3; echo ${i}`, run())));
      expect(outs.map((o) => o.output)).toEqual(Array.from({ length: 8 }, (_, i) => `${i}\n`));
      expect(connectionPool.stats()).toEqual([expect.objectContaining({ connects: 1 })]);
    });

    it('closes an idle connection and reconnects on the next call', async () => {
      await closeAll();
      configureSshPool({ idleMs: 300 });
      try {
        const x = envFor('idle', baseSpec());
        await x.exec('true', run());
        await vi.waitFor(
          () => expect(connectionPool.stats()).toEqual([expect.objectContaining({ connected: false, connects: 1 })]),
          { timeout: 3000 },
        );
        expect(reach.filter(([, p]) => p !== undefined)).toEqual([]);
        expect((await x.exec('echo again', run())).output).toBe('again\n');
        expect(connectionPool.stats()).toEqual([expect.objectContaining({ connected: true, connects: 2 })]);
      } finally {
        configureSshPool({ idleMs: 5 * 60_000 });
      }
    });

    it('an environment outlives connectionPool.closeAll()', async () => {
      const x = envFor('survivor', baseSpec());
      await x.exec('true', run());
      await connectionPool.closeAll();
      expect((await x.exec('echo still', run())).output).toBe('still\n');
    });

    it('cleanup closes the connection when nobody else holds it', async () => {
      await closeAll();
      const x = envFor('cleanup', baseSpec());
      await x.exec('true', run());
      expect(connectionPool.stats()).toHaveLength(1);
      await x.cleanup('idle');
      expect(connectionPool.stats()).toEqual([]);
      // A cleaned-up environment can still be used: it takes a new hold.
      expect((await x.exec('echo again', run())).output).toBe('again\n');
    });
  });
});

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** Every descendant pid of a process (sshd's per-connection children outlive the listener). */
