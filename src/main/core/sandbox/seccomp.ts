// The seccomp filter every bubblewrap sandbox runs under (pure): a table of refused syscalls, and the classic-BPF
// program built from it that `bwrap --seccomp FD` loads (no compiler or libseccomp is needed at run time).

/** The architectures the filter is written for; both are little-endian. */
export type SeccompArch = 'x86_64' | 'aarch64';

/** The filter's arch for Node's `process.arch`, or undefined where there is none (no filter can be built). */
export function seccompArch(nodeArch: string = process.arch): SeccompArch | undefined {
  if (nodeArch === 'x64') return 'x86_64';
  if (nodeArch === 'arm64') return 'aarch64';
  return undefined;
}

// --- classic BPF, as linux/filter.h (bpf_common.h) names it ---
export const BPF_LD = 0x00;
export const BPF_JMP = 0x05;
export const BPF_RET = 0x06;
export const BPF_W = 0x00;
export const BPF_ABS = 0x20;
export const BPF_JA = 0x00;
export const BPF_JEQ = 0x10;
export const BPF_JGT = 0x20;
export const BPF_JGE = 0x30;
export const BPF_JSET = 0x40;
export const BPF_K = 0x00;
/** The kernel refuses a classic-BPF program longer than this (BPF_MAXINSNS). */
export const BPF_MAXINSNS = 4096;
/** One `struct sock_filter`: u16 code, u8 jt, u8 jf, u32 k. */
export const SOCK_FILTER_SIZE = 8;

// --- linux/seccomp.h and linux/audit.h ---
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const AUDIT_ARCH_X86_64 = 0xc000003e;
export const AUDIT_ARCH_AARCH64 = 0xc00000b7;
/** x32 syscalls are x86_64 syscalls with this bit set in their number (__X32_SYSCALL_BIT). */
export const X32_SYSCALL_BIT = 0x40000000;

/** Offsets in `struct seccomp_data { int nr; u32 arch; u64 instruction_pointer; u64 args[6]; }`. */
export const SECCOMP_DATA_NR = 0;
export const SECCOMP_DATA_ARCH = 4;
/** The low 32 bits of args[i]: the first word on a little-endian machine (both arches here). */
export const seccompArgLow = (i: number): number => 16 + 8 * i;

export const ERRNO = { EPERM: 1, ENOSYS: 38 } as const;
export type SeccompErrno = keyof typeof ERRNO;

const AUDIT_ARCH: Record<SeccompArch, number> = { x86_64: AUDIT_ARCH_X86_64, aarch64: AUDIT_ARCH_AARCH64 };

/**
 * Syscall numbers: x86_64 from arch/x86/entry/syscalls/syscall_64.tbl, aarch64 from the generic table
 * (include/uapi/asm-generic/unistd.h). Checked against the kernel headers by seccomp.test.ts where they are installed.
 * A syscall with no number on an arch does not exist there.
 */
export const SYSCALLS = {
  ioctl: { x86_64: 16, aarch64: 29 },
  socket: { x86_64: 41, aarch64: 198 },
  clone: { x86_64: 56, aarch64: 220 },
  ptrace: { x86_64: 101, aarch64: 117 },
  syslog: { x86_64: 103, aarch64: 116 },
  pivot_root: { x86_64: 155, aarch64: 41 },
  acct: { x86_64: 163, aarch64: 89 },
  mount: { x86_64: 165, aarch64: 40 },
  umount2: { x86_64: 166, aarch64: 39 },
  swapon: { x86_64: 167, aarch64: 224 },
  swapoff: { x86_64: 168, aarch64: 225 },
  reboot: { x86_64: 169, aarch64: 142 },
  iopl: { x86_64: 172 },
  ioperm: { x86_64: 173 },
  init_module: { x86_64: 175, aarch64: 105 },
  delete_module: { x86_64: 176, aarch64: 106 },
  kexec_load: { x86_64: 246, aarch64: 104 },
  add_key: { x86_64: 248, aarch64: 217 },
  request_key: { x86_64: 249, aarch64: 218 },
  keyctl: { x86_64: 250, aarch64: 219 },
  unshare: { x86_64: 272, aarch64: 97 },
  perf_event_open: { x86_64: 298, aarch64: 241 },
  name_to_handle_at: { x86_64: 303, aarch64: 264 },
  open_by_handle_at: { x86_64: 304, aarch64: 265 },
  setns: { x86_64: 308, aarch64: 268 },
  process_vm_readv: { x86_64: 310, aarch64: 270 },
  process_vm_writev: { x86_64: 311, aarch64: 271 },
  finit_module: { x86_64: 313, aarch64: 273 },
  kexec_file_load: { x86_64: 320, aarch64: 294 },
  bpf: { x86_64: 321, aarch64: 280 },
  userfaultfd: { x86_64: 323, aarch64: 282 },
  io_uring_setup: { x86_64: 425, aarch64: 425 },
  io_uring_enter: { x86_64: 426, aarch64: 426 },
  io_uring_register: { x86_64: 427, aarch64: 427 },
  open_tree: { x86_64: 428, aarch64: 428 },
  move_mount: { x86_64: 429, aarch64: 429 },
  fsopen: { x86_64: 430, aarch64: 430 },
  fsconfig: { x86_64: 431, aarch64: 431 },
  fsmount: { x86_64: 432, aarch64: 432 },
  fspick: { x86_64: 433, aarch64: 433 },
  clone3: { x86_64: 435, aarch64: 435 },
  mount_setattr: { x86_64: 442, aarch64: 442 },
} as const satisfies Record<string, Partial<Record<SeccompArch, number>>>;
export type SyscallName = keyof typeof SYSCALLS;

/** The syscall's number on an arch, or undefined where it does not exist. */
export function syscallNumber(name: SyscallName, arch: SeccompArch): number | undefined {
  const numbers: Partial<Record<SeccompArch, number>> = SYSCALLS[name];
  return numbers[arch];
}

export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;
export const AF_PACKET = 17;
/** Every CLONE_NEW* flag clone(2) takes: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
export const CLONE_NEW_ANY = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

/**
 * When a row applies, on the low 32 bits of one argument: the kernel reads the arguments ruled on here as 32-bit
 * values (ioctl's request is an unsigned int, socket's domain an int, clone keeps only the low 32 bits of its flags),
 * so a caller cannot slip past with high bits set (CVE-2019-10063, Flatpak's TIOCSTI bypass).
 */
export type ArgCondition = { arg: number; equals: number } | { arg: number; anyBitOf: number };

export interface SeccompRule {
  syscall: SyscallName;
  errno: SeccompErrno;
  /** Refused only when this holds; always when absent. */
  when?: ArgCondition;
  /** Why it is refused, for a person reading the table. */
  why: string;
}

const MOUNT = 'changes the mount table: the sandbox is built of mounts';
const KEYS = 'the kernel keyring holds credentials shared beyond the sandbox';
const MODULES = 'loads or unloads kernel code';
const IO_URING = 'io_uring runs syscalls the filter never sees, and has been a steady source of kernel exploits';

/** What the sandbox refuses; everything else is allowed. */
export const SECCOMP_RULES: readonly SeccompRule[] = [
  { syscall: 'mount', errno: 'EPERM', why: MOUNT },
  { syscall: 'umount2', errno: 'EPERM', why: `${MOUNT}: unmounting a mask would uncover what it hides` },
  { syscall: 'pivot_root', errno: 'EPERM', why: MOUNT },
  { syscall: 'move_mount', errno: 'EPERM', why: MOUNT },
  { syscall: 'open_tree', errno: 'EPERM', why: MOUNT },
  { syscall: 'fsopen', errno: 'EPERM', why: MOUNT },
  { syscall: 'fsconfig', errno: 'EPERM', why: MOUNT },
  { syscall: 'fsmount', errno: 'EPERM', why: MOUNT },
  { syscall: 'fspick', errno: 'EPERM', why: MOUNT },
  { syscall: 'mount_setattr', errno: 'EPERM', why: `${MOUNT}: it could make a read-only bind writable` },
  { syscall: 'unshare', errno: 'EPERM', why: 'a new namespace gives back the capabilities the sandbox dropped' },
  { syscall: 'setns', errno: 'EPERM', why: 'joins another namespace, maybe one outside the sandbox' },
  {
    syscall: 'clone',
    errno: 'EPERM',
    when: { arg: 0, anyBitOf: CLONE_NEW_ANY },
    why: 'a child in a new namespace, as unshare',
  },
  {
    syscall: 'clone3',
    errno: 'ENOSYS',
    why: 'its flags sit in memory the filter cannot read; ENOSYS makes libc fall back to clone, whose flags it can',
  },
  { syscall: 'ptrace', errno: 'EPERM', why: 'reads and writes another process, and escapes its filter' },
  { syscall: 'process_vm_readv', errno: 'EPERM', why: "reads another process's memory" },
  { syscall: 'process_vm_writev', errno: 'EPERM', why: "writes another process's memory" },
  { syscall: 'add_key', errno: 'EPERM', why: KEYS },
  { syscall: 'request_key', errno: 'EPERM', why: KEYS },
  { syscall: 'keyctl', errno: 'EPERM', why: KEYS },
  { syscall: 'bpf', errno: 'EPERM', why: 'loads programs into the kernel' },
  { syscall: 'perf_event_open', errno: 'EPERM', why: 'observes the machine, and leaks kernel addresses' },
  { syscall: 'userfaultfd', errno: 'EPERM', why: 'stalls the kernel at a chosen moment: a tool for exploiting races' },
  { syscall: 'io_uring_setup', errno: 'EPERM', why: IO_URING },
  { syscall: 'io_uring_enter', errno: 'EPERM', why: IO_URING },
  { syscall: 'io_uring_register', errno: 'EPERM', why: IO_URING },
  { syscall: 'kexec_load', errno: 'EPERM', why: 'boots another kernel' },
  { syscall: 'kexec_file_load', errno: 'EPERM', why: 'boots another kernel' },
  { syscall: 'init_module', errno: 'EPERM', why: MODULES },
  { syscall: 'finit_module', errno: 'EPERM', why: MODULES },
  { syscall: 'delete_module', errno: 'EPERM', why: MODULES },
  { syscall: 'reboot', errno: 'EPERM', why: 'reboots or halts the machine' },
  { syscall: 'swapon', errno: 'EPERM', why: "changes the machine's swap" },
  { syscall: 'swapoff', errno: 'EPERM', why: "changes the machine's swap" },
  { syscall: 'acct', errno: 'EPERM', why: 'turns process accounting on or off for the machine' },
  { syscall: 'syslog', errno: 'EPERM', why: 'reads or clears the kernel log' },
  { syscall: 'open_by_handle_at', errno: 'EPERM', why: 'opens a file by handle, past the mounts (the shocker escape)' },
  { syscall: 'name_to_handle_at', errno: 'EPERM', why: 'makes the handles open_by_handle_at takes' },
  { syscall: 'iopl', errno: 'EPERM', why: 'raw access to I/O ports' },
  { syscall: 'ioperm', errno: 'EPERM', why: 'raw access to I/O ports' },
  {
    syscall: 'ioctl',
    errno: 'EPERM',
    when: { arg: 1, equals: TIOCSTI },
    why: 'TIOCSTI pushes keystrokes into a terminal, to be run by the shell outside',
  },
  {
    syscall: 'ioctl',
    errno: 'EPERM',
    when: { arg: 1, equals: TIOCLINUX },
    why: 'TIOCLINUX can paste the console selection: keystrokes again',
  },
  {
    syscall: 'socket',
    errno: 'EPERM',
    when: { arg: 0, equals: AF_PACKET },
    why: 'AF_PACKET sees and forges raw frames, and has had kernel exploits',
  },
];

// --- a small assembler: jumps name labels, resolved to the 8-bit offsets classic BPF has ---

/** One `struct sock_filter`. */
export interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

export function instruction(code: number, jt: number, jf: number, k: number): Instruction {
  return { code, jt, jf, k };
}

/** A line of the program before its labels are resolved; a jump with no label goes on to the next instruction. */
export type Line = { label: string } | { code: number; k: number; jt?: string; jf?: string };

const load = (offset: number): Line => ({ code: BPF_LD | BPF_W | BPF_ABS, k: offset });
const ret = (k: number): Line => ({ code: BPF_RET | BPF_K, k });
/** Jumps to `to` when the test holds; otherwise goes on. */
const jumpIf = (op: number, k: number, to: string): Line => ({ code: BPF_JMP | op | BPF_K, k, jt: to });
/** Goes on when the test holds; otherwise jumps to `to`. */
const unless = (op: number, k: number, to: string): Line => ({ code: BPF_JMP | op | BPF_K, k, jf: to });
const refuse = (errno: SeccompErrno): Line => ret(SECCOMP_RET_ERRNO | ERRNO[errno]);

/** Resolves labels to forward offsets; throws where one is missing, backward or beyond the 255 a jump can hold. */
export function assemble(lines: readonly Line[]): Instruction[] {
  const at = new Map<string, number>();
  let pc = 0;
  for (const line of lines) {
    if (!('label' in line)) pc++;
    else if (at.has(line.label)) throw new Error(`seccomp: label ${line.label} is defined twice`);
    else at.set(line.label, pc);
  }
  const out: Instruction[] = [];
  const offset = (label: string | undefined): number => {
    if (label === undefined) return 0;
    const target = at.get(label);
    if (target === undefined) throw new Error(`seccomp: jump to ${label}, which is not defined`);
    const d = target - (out.length + 1);
    if (d < 0 || d > 0xff) throw new Error(`seccomp: jump to ${label} is ${d} instructions, outside 0..255`);
    return d;
  };
  for (const line of lines) {
    if ('label' in line) continue;
    out.push(instruction(line.code, offset(line.jt), offset(line.jf), line.k));
  }
  return out;
}

/** The lines of one row, with the syscall number in the accumulator before and after. */
function ruleLines(rule: SeccompRule, nr: number, next: string): Line[] {
  if (!rule.when) return [unless(BPF_JEQ, nr, next), refuse(rule.errno)];
  const { when } = rule;
  const reload = `${next}.nr`;
  return [
    unless(BPF_JEQ, nr, next),
    load(seccompArgLow(when.arg)),
    'equals' in when ? unless(BPF_JEQ, when.equals, reload) : unless(BPF_JSET, when.anyBitOf, reload),
    refuse(rule.errno),
    { label: reload },
    load(SECCOMP_DATA_NR),
  ];
}

/**
 * The filter for one arch, as `bwrap --seccomp FD` reads it: an array of `struct sock_filter` in the host's byte
 * order (little-endian on both arches). Every jump stays inside its own row, so the table can grow without a jump
 * going out of range. `rules` is there for tests; the sandbox uses the table.
 */
export function seccompProgram(arch: SeccompArch, rules: readonly SeccompRule[] = SECCOMP_RULES): Buffer {
  const lines: Line[] = [
    load(SECCOMP_DATA_ARCH),
    // A syscall made for another arch (an i386 binary on x86_64, or int 0x80 from a 64-bit one; arm32 on aarch64)
    // has other numbers, which the rows below do not know: refuse all of them, so 32-bit programs do not run in the
    // sandbox.
    jumpIf(BPF_JEQ, AUDIT_ARCH[arch], 'native'),
    refuse('ENOSYS'),
    { label: 'native' },
    load(SECCOMP_DATA_NR),
  ];
  // x32 calls reach the same kernel code by other numbers (nr | 0x40000000): refuse them all.
  if (arch === 'x86_64') lines.push(unless(BPF_JGE, X32_SYSCALL_BIT, 'rows'), refuse('EPERM'), { label: 'rows' });
  rules.forEach((rule, i) => {
    const nr = syscallNumber(rule.syscall, arch);
    if (nr === undefined) return;
    const next = `row${i}`;
    lines.push(...ruleLines(rule, nr, next), { label: next });
  });
  lines.push(ret(SECCOMP_RET_ALLOW));
  const program = assemble(lines);
  if (program.length > BPF_MAXINSNS) throw new Error(`seccomp: ${program.length} instructions, over ${BPF_MAXINSNS}`);
  const buf = Buffer.alloc(program.length * SOCK_FILTER_SIZE);
  program.forEach((ins, i) => {
    const o = i * SOCK_FILTER_SIZE;
    buf.writeUInt16LE(ins.code, o);
    buf.writeUInt8(ins.jt, o + 2);
    buf.writeUInt8(ins.jf, o + 3);
    buf.writeUInt32LE(ins.k >>> 0, o + 4);
  });
  return buf;
}
