// The seccomp program against the real kernel: bwrap loads it, and a probe inside (seccompProbe.py) finds each thing
// it refuses refused with the table's errno and ordinary work still working, as root and as an unprivileged user.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BPF_K,
  BPF_RET,
  ERRNO,
  SECCOMP_RET_ERRNO,
  SECCOMP_RULES,
  SOCK_FILTER_SIZE,
  type SeccompArch,
  type SeccompErrno,
  type SyscallName,
  seccompArch,
  seccompProgram,
  syscallNumber,
} from './seccomp.js';

const arch = seccompArch();
const bwrapMissing = spawnSync('bwrap', ['--version'], { stdio: 'ignore' }).error !== undefined;
const skip = !arch ? `no seccomp filter for ${process.arch}` : bwrapMissing ? 'bwrap is not installed' : undefined;
if (skip) console.warn(`seccomp kernel tests skipped: ${skip}`);
const live = skip ? describe.skip : describe;

const here = dirname(fileURLToPath(import.meta.url));
/** The system's python3 (a version manager's shim under root's home is out of an unprivileged user's reach). */
const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p)) ?? 'python3';
/** What the marked run's filter returns where the table says EPERM: no kernel path returns it, only the filter. */
const MARK = 1000;

/** Each refusal the probe tries, by its name there, and the syscall whose row must refuse it. */
const PROBED: Record<string, SyscallName> = {
  'unshare(CLONE_NEWUSER)': 'unshare',
  'clone(CLONE_NEWNS)': 'clone',
  clone3: 'clone3',
  setns: 'setns',
  mount: 'mount',
  umount2: 'umount2',
  pivot_root: 'pivot_root',
  open_tree: 'open_tree',
  move_mount: 'move_mount',
  fsopen: 'fsopen',
  fsconfig: 'fsconfig',
  fsmount: 'fsmount',
  fspick: 'fspick',
  mount_setattr: 'mount_setattr',
  'ptrace(PTRACE_TRACEME)': 'ptrace',
  process_vm_readv: 'process_vm_readv',
  process_vm_writev: 'process_vm_writev',
  add_key: 'add_key',
  request_key: 'request_key',
  keyctl: 'keyctl',
  bpf: 'bpf',
  perf_event_open: 'perf_event_open',
  userfaultfd: 'userfaultfd',
  io_uring_setup: 'io_uring_setup',
  io_uring_enter: 'io_uring_enter',
  io_uring_register: 'io_uring_register',
  kexec_load: 'kexec_load',
  kexec_file_load: 'kexec_file_load',
  init_module: 'init_module',
  finit_module: 'finit_module',
  delete_module: 'delete_module',
  'reboot(bad magic)': 'reboot',
  swapon: 'swapon',
  swapoff: 'swapoff',
  acct: 'acct',
  'syslog(SIZE_BUFFER)': 'syslog',
  name_to_handle_at: 'name_to_handle_at',
  open_by_handle_at: 'open_by_handle_at',
  'ioctl(TIOCSTI)': 'ioctl',
  'ioctl(TIOCSTI | 1<<32)': 'ioctl',
  'ioctl(TIOCSTI | 0xffffffff<<32)': 'ioctl',
  'ioctl(TIOCLINUX)': 'ioctl',
  'socket(AF_PACKET)': 'socket',
  'socket(AF_PACKET | 1<<32)': 'socket',
  'iopl(0)': 'iopl',
  ioperm: 'ioperm',
};
const CONTROLS = [
  'read/write',
  'openat',
  'fork',
  'thread',
  'posix_spawn',
  'socket(AF_INET)',
  'socket(AF_UNIX)',
  'ioctl(TCGETS)',
  'ioctl(TIOCGWINSZ)',
  'getpid',
];

interface ProbeReport {
  refused: Record<string, number | string>;
  allowed: Record<string, number | string>;
  writes: Record<string, number | string>;
  status: Record<string, string>;
  fds: Record<string, string>;
}

/** The probes this arch runs, each with the errno its row gives. */
function expectedRefusals(a: SeccompArch): Record<string, SeccompErrno> {
  const out: Record<string, SeccompErrno> = {};
  for (const [probe, syscall] of Object.entries(PROBED)) {
    if (syscallNumber(syscall, a) === undefined) continue;
    const rule = SECCOMP_RULES.find((r) => r.syscall === syscall);
    if (!rule) throw new Error(`no row for ${syscall}`);
    out[probe] = rule.errno;
  }
  return out;
}

/** The program with every EPERM return changed to MARK: a refusal with MARK can only have come from the filter. */
function marked(program: Buffer): Buffer {
  const out = Buffer.from(program);
  for (let o = 0; o < out.length; o += SOCK_FILTER_SIZE) {
    if (out.readUInt16LE(o) === (BPF_RET | BPF_K) && out.readUInt32LE(o + 4) === (SECCOMP_RET_ERRNO | ERRNO.EPERM)) {
      out.writeUInt32LE(SECCOMP_RET_ERRNO | MARK, o + 4);
    }
  }
  return out;
}

/**
 * The sandbox's shape as the lead will run it. `--ro-bind /proc/sys /proc/sys` is needed as well: bwrap 0.8 means to
 * cover /proc/sys, but asks access(W_OK) first, which procfs always answers EACCES for that directory, so it is left
 * writable, and a process whose uid is root's outside (the Core run as root) writes host sysctls
 * (kernel.core_pattern: code run as root on the next crash) with no capability at all.
 */
function bwrapCommand(python: string, probe: string): string[] {
  return [
    'bwrap',
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--unshare-pid',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    '--dev',
    '/dev',
    '--die-with-parent',
    '--seccomp',
    '3',
    '--',
    python,
    probe,
  ];
}

/** How long a probe may run before it counts as hung (a syscall let through by mistake can stop it for good). */
const PROBE_DEADLINE_MS = 60_000;

/** Runs the probe under bwrap with `programFile` on fd 3; anything but a clean exit with one JSON object throws. */
function runProbe(asUser: string[], programFile: string, probe: string): Promise<ProbeReport> {
  const [file = 'bwrap', ...args] = [...asUser, ...bwrapCommand(PYTHON, probe)];
  const fd = openSync(programFile, 'r');
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe', fd],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
      timeout: PROBE_DEADLINE_MS,
      killSignal: 'SIGKILL',
    });
    closeSync(fd);
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`probe did not finish (exit ${code ?? signal}): ${err.trim()}`));
      try {
        resolve(JSON.parse(out) as ProbeReport);
      } catch {
        reject(new Error(`probe printed no report: ${out.slice(0, 200)} ${err.trim()}`));
      }
    });
  });
}

/** `[flags…]` that run a command as `user`, with no groups and so no capabilities. */
function asUser(user: string): string[] {
  const id = (flag: string) => spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim();
  return ['setpriv', '--reuid', id('-u'), '--regid', id('-g'), '--clear-groups'];
}

const root = process.getuid?.() === 0;
if (!skip && !root) console.warn('seccomp kernel tests: not root, so only the unprivileged run (as this user) is made');
const runs: { who: string; prefix: string[] }[] = root
  ? [
      { who: 'root', prefix: [] },
      { who: 'nobody', prefix: asUser('nobody') },
    ]
  : [{ who: `uid ${process.getuid?.()}`, prefix: [] }];

live('seccomp program in the kernel', () => {
  const a = arch as SeccompArch;
  let dir = '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-seccomp-'));
    chmodSync(dir, 0o755);
    const program = seccompProgram(a);
    writeFileSync(join(dir, 'program.bpf'), program, { mode: 0o644 });
    writeFileSync(join(dir, 'marked.bpf'), marked(program), { mode: 0o644 });
    copyFileSync(join(here, 'seccompProbe.py'), join(dir, 'probe.py'));
    chmodSync(join(dir, 'probe.py'), 0o644);
  });

  it('the probe tries every row of this arch', () => {
    const probed = new Set(Object.values(PROBED));
    const rows = SECCOMP_RULES.filter((r) => syscallNumber(r.syscall, a) !== undefined).map((r) => r.syscall);
    expect(rows.filter((s) => !probed.has(s))).toEqual([]);
  });

  describe.each(runs)('as $who', ({ prefix }) => {
    let report: ProbeReport;
    let markedReport: ProbeReport;
    beforeAll(async () => {
      [report, markedReport] = await Promise.all([
        runProbe(prefix, join(dir, 'program.bpf'), join(dir, 'probe.py')),
        runProbe(prefix, join(dir, 'marked.bpf'), join(dir, 'probe.py')),
      ]);
    });

    it('runs under a filter, with no capabilities', () => {
      expect(report.status).toEqual({ Seccomp: '2', CapEff: '0000000000000000' });
    });

    it("refuses each row's calls with its errno", () => {
      const want = Object.fromEntries(Object.entries(expectedRefusals(a)).map(([k, e]) => [k, ERRNO[e]]));
      expect(report.refused).toEqual(want);
    });

    it('the filter is what refused them: a marked filter changes each EPERM to its mark', () => {
      const want = Object.fromEntries(
        Object.entries(expectedRefusals(a)).map(([k, e]) => [k, e === 'EPERM' ? MARK : ERRNO[e]]),
      );
      expect(markedReport.refused).toEqual(want);
    });

    it('ordinary work still works: read, write, open, fork, threads (clone3 falls back), spawn, sockets, ioctl', () => {
      expect(report.allowed).toEqual(Object.fromEntries(CONTROLS.map((c) => [c, 0])));
    });

    it('cannot open kernel.core_pattern or /proc/sysrq-trigger for writing', () => {
      expect(Object.keys(report.writes)).toEqual(['/proc/sys/kernel/core_pattern', '/proc/sysrq-trigger']);
      for (const [path, errno] of Object.entries(report.writes)) {
        expect([path, typeof errno === 'number' && errno > 0]).toEqual([path, true]);
      }
    });

    // fds the test process itself inherited without close-on-exec reach the probe too (bwrap closes none but its own),
    // so the check is on the program's fd only.
    it('bwrap closed the program fd before running the command', () => {
      expect(Object.keys(report.fds)).not.toContain('3');
      expect(Object.values(report.fds).filter((f) => f.endsWith('.bpf'))).toEqual([]);
      expect(Object.keys(report.fds)).toEqual(expect.arrayContaining(['0', '1', '2']));
    });
  });
});
