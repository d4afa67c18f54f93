// The seccomp program, run by a small classic-BPF interpreter on made-up syscalls: every row's verdict on both
// arches, the arch and x32 checks, the argument checks with high bits set, and ordinary syscalls let through.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AF_PACKET,
  assemble,
  AUDIT_ARCH_AARCH64,
  AUDIT_ARCH_X86_64,
  BPF_ABS,
  BPF_JA,
  BPF_JEQ,
  BPF_JGE,
  BPF_JGT,
  BPF_JMP,
  BPF_JSET,
  BPF_K,
  BPF_LD,
  BPF_MAXINSNS,
  BPF_RET,
  BPF_W,
  CLONE_NEW_ANY,
  ERRNO,
  type Line,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RULES,
  type SeccompArch,
  type SeccompRule,
  SOCK_FILTER_SIZE,
  SYSCALLS,
  type SyscallName,
  seccompArch,
  seccompProgram,
  syscallNumber,
  TIOCLINUX,
  TIOCSTI,
} from './seccomp.js';

const ARCHES: readonly SeccompArch[] = ['x86_64', 'aarch64'];
const NATIVE: Record<SeccompArch, number> = { x86_64: AUDIT_ARCH_X86_64, aarch64: AUDIT_ARCH_AARCH64 };
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_ARM = 0x40000028;

/** Ordinary syscalls by number, for the controls (not in the table, which holds only what is ruled on). */
const ORDINARY: Record<string, Record<SeccompArch, number>> = {
  read: { x86_64: 0, aarch64: 63 },
  write: { x86_64: 1, aarch64: 64 },
  openat: { x86_64: 257, aarch64: 56 },
  getpid: { x86_64: 39, aarch64: 172 }, // 172 is iopl on x86_64: aarch64 must not refuse it
  getppid: { x86_64: 110, aarch64: 173 }, // 173 is ioperm on x86_64
  exit_group: { x86_64: 231, aarch64: 94 },
};

type Verdict = 'allow' | 'EPERM' | 'ENOSYS';

/** seccomp_data for one call: nr, arch, then the six arguments as 64-bit values. */
function seccompData(arch: number, nr: number, args: readonly bigint[] = []): Buffer {
  const d = Buffer.alloc(64);
  d.writeInt32LE(nr, 0);
  d.writeUInt32LE(arch, 4);
  args.forEach((a, i) => d.writeBigUInt64LE(a, 16 + 8 * i));
  return d;
}

/** A classic-BPF interpreter for the instructions a seccomp filter uses here; throws on anything else. */
function run(program: Buffer, data: Buffer): number {
  const n = program.length / SOCK_FILTER_SIZE;
  let a = 0;
  let pc = 0;
  while (pc < n) {
    const o = pc * SOCK_FILTER_SIZE;
    const code = program.readUInt16LE(o);
    const jt = program.readUInt8(o + 2);
    const jf = program.readUInt8(o + 3);
    const k = program.readUInt32LE(o + 4);
    pc++;
    const jump = (cond: boolean) => {
      pc += cond ? jt : jf;
    };
    switch (code) {
      case BPF_LD | BPF_W | BPF_ABS:
        if (k % 4 !== 0 || k + 4 > data.length) throw new Error(`load at ${k}`);
        a = data.readUInt32LE(k);
        break;
      case BPF_JMP | BPF_JA:
        pc += k;
        break;
      case BPF_JMP | BPF_JEQ | BPF_K:
        jump(a === k);
        break;
      case BPF_JMP | BPF_JGT | BPF_K:
        jump(a > k);
        break;
      case BPF_JMP | BPF_JGE | BPF_K:
        jump(a >= k);
        break;
      case BPF_JMP | BPF_JSET | BPF_K:
        jump((a & k) >>> 0 !== 0);
        break;
      case BPF_RET | BPF_K:
        return k;
      default:
        throw new Error(`instruction ${code.toString(16)} at ${pc - 1}`);
    }
  }
  throw new Error('ran off the end of the program');
}

function verdict(ret: number): Verdict {
  if (ret === SECCOMP_RET_ALLOW) return 'allow';
  if (ret === (SECCOMP_RET_ERRNO | ERRNO.EPERM)) return 'EPERM';
  if (ret === (SECCOMP_RET_ERRNO | ERRNO.ENOSYS)) return 'ENOSYS';
  throw new Error(`unexpected return ${ret.toString(16)}`);
}

const programs = { x86_64: seccompProgram('x86_64'), aarch64: seccompProgram('aarch64') };

function call(arch: SeccompArch, nr: number, args: readonly bigint[] = [], auditArch = NATIVE[arch]): Verdict {
  return verdict(run(programs[arch], seccompData(auditArch, nr, args)));
}

function nr(name: SyscallName, arch: SeccompArch): number {
  const n = syscallNumber(name, arch);
  if (n === undefined) throw new Error(`${name} has no number on ${arch}`);
  return n;
}

/** Arguments that meet a row's condition (or any arguments, for a row without one). */
function meeting(rule: SeccompRule): bigint[] {
  const args = [0n, 0n, 0n, 0n, 0n, 0n];
  if (rule.when) args[rule.when.arg] = BigInt('equals' in rule.when ? rule.when.equals : rule.when.anyBitOf);
  return args;
}

describe('seccompArch', () => {
  it.each([
    ['x64', 'x86_64'],
    ['arm64', 'aarch64'],
    ['ia32', undefined],
    ['arm', undefined],
    ['riscv64', undefined],
  ])('%s → %s', (node, arch) => expect(seccompArch(node)).toBe(arch));
});

describe('seccompProgram: the rows', () => {
  for (const arch of ARCHES) {
    const rows = SECCOMP_RULES.filter((r) => syscallNumber(r.syscall, arch) !== undefined);
    it.each(rows.map((r) => [`${r.syscall}${r.when ? ` (${JSON.stringify(r.when)})` : ''}`, r] as const))(
      `${arch}: %s is refused`,
      (_, rule) => expect(call(arch, nr(rule.syscall, arch), meeting(rule))).toBe(rule.errno),
    );
  }

  it('clone3 gets ENOSYS (libc then falls back to clone); the rest EPERM', () => {
    for (const r of SECCOMP_RULES)
      expect([r.syscall, r.errno]).toEqual([r.syscall, r.syscall === 'clone3' ? 'ENOSYS' : 'EPERM']);
  });

  it('iopl and ioperm exist only on x86_64; their numbers are getpid and getppid on aarch64, allowed', () => {
    expect(call('x86_64', nr('iopl', 'x86_64'), [3n])).toBe('EPERM');
    expect(call('x86_64', nr('ioperm', 'x86_64'))).toBe('EPERM');
    expect(syscallNumber('iopl', 'aarch64')).toBeUndefined();
    expect(call('aarch64', 172)).toBe('allow');
    expect(call('aarch64', 173)).toBe('allow');
  });

  it('every row has a reason a person reads', () => {
    for (const r of SECCOMP_RULES) expect(r.why.length).toBeGreaterThan(10);
  });
});

describe('seccompProgram: arguments', () => {
  const CLONE_NEW = {
    CLONE_NEWNS: 0x00020000,
    CLONE_NEWCGROUP: 0x02000000,
    CLONE_NEWUTS: 0x04000000,
    CLONE_NEWIPC: 0x08000000,
    CLONE_NEWUSER: 0x10000000,
    CLONE_NEWPID: 0x20000000,
    CLONE_NEWNET: 0x40000000,
  };
  const SIGCHLD = 17n;
  /** What glibc's pthread_create passes: VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID. */
  const THREAD_FLAGS = 0x3d0f00n;
  const TCGETS = 0x5401;
  const FIONREAD = 0x541b;
  const AF_UNIX = 1;
  const AF_INET = 2;
  const AF_INET6 = 10;
  const AF_NETLINK = 16;

  for (const arch of ARCHES) {
    const clone = nr('clone', arch);
    const ioctl = nr('ioctl', arch);
    const socket = nr('socket', arch);
    it(`${arch}: clone with any CLONE_NEW* flag is refused; fork and threads are not`, () => {
      expect(Object.values(CLONE_NEW).reduce((m, f) => m | f, 0)).toBe(CLONE_NEW_ANY);
      for (const [name, flag] of Object.entries(CLONE_NEW)) {
        expect([name, call(arch, clone, [BigInt(flag) | SIGCHLD])]).toEqual([name, 'EPERM']);
        expect([name, call(arch, clone, [BigInt(flag) | THREAD_FLAGS])]).toEqual([name, 'EPERM']);
      }
      expect(call(arch, clone, [SIGCHLD])).toBe('allow');
      expect(call(arch, clone, [THREAD_FLAGS])).toBe('allow');
      expect(call(arch, clone, [0x100n | 0x200n | SIGCHLD])).toBe('allow'); // CLONE_VM|CLONE_FS
      expect(call(arch, clone, [0x4000n | 0x100n | SIGCHLD])).toBe('allow'); // vfork: CLONE_VFORK|CLONE_VM
    });

    it(`${arch}: ioctl TIOCSTI and TIOCLINUX are refused, with or without high bits; other requests are not`, () => {
      for (const request of [TIOCSTI, TIOCLINUX]) {
        expect(call(arch, ioctl, [0n, BigInt(request)])).toBe('EPERM');
        expect(call(arch, ioctl, [0n, 0x1_0000_0000n | BigInt(request)])).toBe('EPERM');
        expect(call(arch, ioctl, [0n, 0xffff_ffff_0000_0000n | BigInt(request)])).toBe('EPERM');
        expect(call(arch, ioctl, [BigInt(request), 0n])).toBe('allow'); // the fd, not the request
      }
      for (const request of [TCGETS, FIONREAD, 0x5413 /* TIOCGWINSZ */, TIOCSTI + 0x10000]) {
        expect([request, call(arch, ioctl, [1n, BigInt(request)])]).toEqual([request, 'allow']);
      }
    });

    it(`${arch}: socket(AF_PACKET) is refused, high bits or not; AF_UNIX, INET, INET6, NETLINK are not`, () => {
      expect(call(arch, socket, [BigInt(AF_PACKET), 3n])).toBe('EPERM');
      expect(call(arch, socket, [0x1_0000_0000n | BigInt(AF_PACKET), 3n])).toBe('EPERM');
      for (const domain of [AF_UNIX, AF_INET, AF_INET6, AF_NETLINK]) {
        expect([domain, call(arch, socket, [BigInt(domain), 1n])]).toEqual([domain, 'allow']);
      }
      expect(call(arch, socket, [BigInt(AF_INET), BigInt(AF_PACKET)])).toBe('allow'); // the type, not the domain
    });

    it(`${arch}: ordinary syscalls are allowed`, () => {
      for (const [name, n] of Object.entries(ORDINARY)) expect([name, call(arch, n[arch])]).toEqual([name, 'allow']);
    });
  }
});

describe('seccompProgram: the arch check', () => {
  it.each([
    ['x86_64', AUDIT_ARCH_I386, 21], // i386 mount
    ['x86_64', AUDIT_ARCH_I386, 3], // i386 read: every foreign call, not only the refused ones
    ['x86_64', AUDIT_ARCH_AARCH64, 63],
    ['aarch64', AUDIT_ARCH_ARM, 21],
    ['aarch64', AUDIT_ARCH_ARM, 3],
    ['aarch64', AUDIT_ARCH_X86_64, 0],
  ] as const)('%s refuses a call of arch %d (nr %d) with ENOSYS', (arch, foreign, n) => {
    expect(call(arch, n, [], foreign)).toBe('ENOSYS');
  });

  it('x86_64 refuses every x32 call with EPERM', () => {
    const X32 = 0x40000000;
    for (const n of [X32, X32 | 1, X32 | nr('mount', 'x86_64'), X32 | 520, 0x7fffffff]) {
      expect([n, call('x86_64', n)]).toEqual([n, 'EPERM']);
    }
    expect(call('x86_64', X32 - 1)).toBe('allow');
  });
});

describe('seccompProgram: shape', () => {
  for (const arch of ARCHES) {
    it(`${arch}: whole instructions, under ${BPF_MAXINSNS}, ending in a return, every jump inside`, () => {
      const p = programs[arch];
      expect(p.length % SOCK_FILTER_SIZE).toBe(0);
      const n = p.length / SOCK_FILTER_SIZE;
      expect(n).toBeLessThan(BPF_MAXINSNS);
      expect(p.readUInt16LE((n - 1) * SOCK_FILTER_SIZE)).toBe(BPF_RET | BPF_K);
      for (let pc = 0; pc < n; pc++) {
        const code = p.readUInt16LE(pc * SOCK_FILTER_SIZE);
        if ((code & 0x07) !== BPF_JMP) continue;
        const k = p.readUInt32LE(pc * SOCK_FILTER_SIZE + 4);
        const jt = p.readUInt8(pc * SOCK_FILTER_SIZE + 2);
        const jf = p.readUInt8(pc * SOCK_FILTER_SIZE + 3);
        const targets = code === (BPF_JMP | BPF_JA) ? [k] : [jt, jf];
        for (const t of targets) expect(pc + 1 + t).toBeLessThan(n);
      }
    });
  }

  it('loads the arch first, and the number only after it', () => {
    const p = programs.x86_64;
    expect([p.readUInt16LE(0), p.readUInt32LE(4)]).toEqual([BPF_LD | BPF_W | BPF_ABS, 4]);
  });

  it('stays valid with a table of 1000 rows: every jump is inside its own row', () => {
    const big: SeccompRule[] = [];
    for (let i = 0; i < 500; i++) {
      big.push({ syscall: 'mount', errno: 'EPERM', why: 'many' });
      big.push({ syscall: 'ioctl', errno: 'EPERM', when: { arg: 1, equals: 0x9000 + i }, why: 'many' });
    }
    const p = seccompProgram('x86_64', big);
    expect(verdict(run(p, seccompData(AUDIT_ARCH_X86_64, 16, [0n, 0x9000n + 499n])))).toBe('EPERM');
    expect(verdict(run(p, seccompData(AUDIT_ARCH_X86_64, 16, [0n, 0x9000n + 500n])))).toBe('allow');
    expect(() => seccompProgram('x86_64', [...big, ...big])).toThrow(/instructions, over 4096/);
  });

  it('the assembler refuses a jump it cannot encode, and one to nowhere', () => {
    const far: Line[] = [{ code: BPF_JMP | BPF_JEQ | BPF_K, k: 1, jt: 'end' }];
    for (let i = 0; i < 256; i++) far.push({ code: BPF_RET | BPF_K, k: 0 });
    expect(() => assemble([...far, { label: 'end' }, { code: BPF_RET | BPF_K, k: 0 }])).toThrow(/256 instructions/);
    expect(() => assemble([{ code: BPF_JMP | BPF_JEQ | BPF_K, k: 1, jf: 'nowhere' }])).toThrow(/not defined/);
  });
});

/** `#define __NR_name N` lines of a kernel header, if this machine has it. */
function headerNumbers(path: string): Map<string, number> | undefined {
  if (!existsSync(path)) return undefined;
  const m = new Map<string, number>();
  for (const [, name, n] of readFileSync(path, 'utf8').matchAll(/^#define __NR(?:3264)?_(\w+)\s+(\d+)\b/gm)) {
    if (name && n) m.set(name, Number(n));
  }
  return m;
}

describe('syscall numbers agree with the kernel headers installed here', () => {
  const headers: Record<SeccompArch, string> = {
    x86_64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h',
    aarch64: '/usr/include/asm-generic/unistd.h',
  };
  for (const arch of ARCHES) {
    const table = headerNumbers(headers[arch]);
    if (!table) console.warn(`seccomp: ${arch} numbers not checked: ${headers[arch]} is missing (linux-libc-dev)`);
    it.skipIf(!table)(`${arch}: every number as in ${headers[arch]}`, () => {
      for (const name of Object.keys(SYSCALLS) as SyscallName[]) {
        expect([name, syscallNumber(name, arch)]).toEqual([name, table?.get(name)]);
      }
      for (const [name, n] of Object.entries(ORDINARY)) expect([name, n[arch]]).toEqual([name, table?.get(name)]);
    });
  }
});
