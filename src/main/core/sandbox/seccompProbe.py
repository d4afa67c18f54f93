# The probe seccompKernel.test.ts runs inside bwrap: tries each thing the seccomp filter refuses and a few it must not,
# and prints one JSON object: each check's errno (0: it worked), the Seccomp and CapEff lines, and the fds it started
# with. Its syscall numbers are its own (from the kernel's tables), so a wrong number in seccomp.ts shows as a difference.
import ctypes
import fcntl
import json
import os
import platform
import socket
import termios
import threading


def fds():
    names = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            names[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass  # the directory listing's own fd, closed by now
    return names


# Before the probe opens anything: what bwrap left open (the seccomp program's fd should not be).
FDS_AT_START = fds()

NR = {
    "x86_64": dict(
        ioctl=16, socket=41, clone=56, getpid=39, ptrace=101, syslog=103, pivot_root=155, acct=163, mount=165,
        umount2=166, swapon=167, swapoff=168, reboot=169, iopl=172, ioperm=173, init_module=175,
        delete_module=176, kexec_load=246, add_key=248, request_key=249, keyctl=250, unshare=272,
        perf_event_open=298, name_to_handle_at=303, open_by_handle_at=304, setns=308, process_vm_readv=310,
        process_vm_writev=311, finit_module=313, kexec_file_load=320, bpf=321, userfaultfd=323,
        io_uring_setup=425, io_uring_enter=426, io_uring_register=427, open_tree=428, move_mount=429, fsopen=430,
        fsconfig=431, fsmount=432, fspick=433, clone3=435, mount_setattr=442,
    ),
    "aarch64": dict(
        ioctl=29, socket=198, clone=220, getpid=172, ptrace=117, syslog=116, pivot_root=41, acct=89, mount=40,
        umount2=39, swapon=224, swapoff=225, reboot=142, init_module=105, delete_module=106, kexec_load=104,
        add_key=217, request_key=218, keyctl=219, unshare=97, perf_event_open=241, name_to_handle_at=264,
        open_by_handle_at=265, setns=268, process_vm_readv=270, process_vm_writev=271, finit_module=273,
        kexec_file_load=294, bpf=280, userfaultfd=282, io_uring_setup=425, io_uring_enter=426,
        io_uring_register=427, open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433,
        clone3=435, mount_setattr=442,
    ),
}[platform.machine()]

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD = -100
CLONE_NEWNS, CLONE_NEWUSER, SIGCHLD = 0x20000, 0x10000000, 17
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_SESSION_KEYRING = -2, -3


def arg(a):
    if a is None:
        return ctypes.c_void_p(None)
    if isinstance(a, bytes):
        return ctypes.c_char_p(a)
    if isinstance(a, int):
        return ctypes.c_long(a) if a < 2**63 else ctypes.c_ulong(a)
    return a


def call(name, *args):
    """The syscall's errno, 0 when it worked. Arguments are passed as full 64-bit values."""
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[name]), *[arg(a) for a in args])
    return ctypes.get_errno() if r == -1 else 0


def clone_newns():
    # Arguments chosen so that, were it let through, the child would exit at once and the parent reap it.
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR["clone"]), *[arg(a) for a in (CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0)])
    if r == 0:
        os._exit(0)
    if r > 0:
        os.waitpid(r, 0)
        return 0
    return ctypes.get_errno()


def oserror(f):
    try:
        f()
        return 0
    except OSError as e:
        return e.errno


master, slave = os.openpty()
c = ctypes.c_char(b"x")
handle = ctypes.create_string_buffer(b"\0" * 16)  # struct file_handle with handle_bytes 0
mount_id = ctypes.c_int(0)

refused = {
    "unshare(CLONE_NEWUSER)": lambda: call("unshare", CLONE_NEWUSER),
    "clone(CLONE_NEWNS)": clone_newns,
    # Without the filter this is EINVAL (no clone_args): ENOSYS shows it was the filter.
    "clone3": lambda: call("clone3", None, 0),
    "setns": lambda: call("setns", -1, 0),
    "mount": lambda: call("mount", b"none", b"/tmp", b"tmpfs", 0, None),
    "umount2": lambda: call("umount2", b"/proc", 2),
    "pivot_root": lambda: call("pivot_root", b"/tmp", b"/tmp"),
    "open_tree": lambda: call("open_tree", AT_FDCWD, b"/", 0),
    "move_mount": lambda: call("move_mount", -1, b"", -1, b"", 0),
    "fsopen": lambda: call("fsopen", b"tmpfs", 0),
    "fsconfig": lambda: call("fsconfig", -1, 0, None, None, 0),
    "fsmount": lambda: call("fsmount", -1, 0, 0),
    "fspick": lambda: call("fspick", AT_FDCWD, b"/", 0),
    "mount_setattr": lambda: call("mount_setattr", -1, b"", 0, None, 0),
    "ptrace(PTRACE_TRACEME)": lambda: call("ptrace", 0, 0, 0, 0),
    "process_vm_readv": lambda: call("process_vm_readv", os.getpid(), None, 0, None, 0, 0),
    "process_vm_writev": lambda: call("process_vm_writev", os.getpid(), None, 0, None, 0, 0),
    "add_key": lambda: call("add_key", b"user", b"probe", b"x", 1, KEY_SPEC_PROCESS_KEYRING),
    "request_key": lambda: call("request_key", b"user", b"probe-missing", None, KEY_SPEC_PROCESS_KEYRING),
    "keyctl": lambda: call("keyctl", 0, KEY_SPEC_SESSION_KEYRING, 0),
    "bpf": lambda: call("bpf", 0, None, 0),
    "perf_event_open": lambda: call("perf_event_open", None, 0, -1, -1, 0),
    "userfaultfd": lambda: call("userfaultfd", 0),
    "io_uring_setup": lambda: call("io_uring_setup", 1, None),
    "io_uring_enter": lambda: call("io_uring_enter", -1, 0, 0, 0, None, 0),
    "io_uring_register": lambda: call("io_uring_register", -1, 0, None, 0),
    "kexec_load": lambda: call("kexec_load", 0, 0, None, 0),
    "kexec_file_load": lambda: call("kexec_file_load", -1, -1, 0, None, 0),
    "init_module": lambda: call("init_module", None, 0, b""),
    "finit_module": lambda: call("finit_module", -1, b"", 0),
    "delete_module": lambda: call("delete_module", b"probe_missing", 0),
    "reboot(bad magic)": lambda: call("reboot", 0, 0, 0, None),
    "swapon": lambda: call("swapon", b"/nonexistent", 0),
    "swapoff": lambda: call("swapoff", b"/nonexistent"),
    "acct": lambda: call("acct", None),
    "syslog(SIZE_BUFFER)": lambda: call("syslog", 10, None, 0),
    "name_to_handle_at": lambda: call("name_to_handle_at", AT_FDCWD, b"/", handle, ctypes.byref(mount_id), 0),
    "open_by_handle_at": lambda: call("open_by_handle_at", AT_FDCWD, handle, 0),
    "ioctl(TIOCSTI)": lambda: oserror(lambda: fcntl.ioctl(slave, TIOCSTI, b"x")),
    "ioctl(TIOCSTI | 1<<32)": lambda: call("ioctl", slave, (1 << 32) | TIOCSTI, ctypes.byref(c)),
    "ioctl(TIOCSTI | 0xffffffff<<32)": lambda: call("ioctl", slave, (0xFFFFFFFF << 32) | TIOCSTI, ctypes.byref(c)),
    "ioctl(TIOCLINUX)": lambda: oserror(lambda: fcntl.ioctl(slave, TIOCLINUX, b"\x06\0")),
    "socket(AF_PACKET)": lambda: oserror(lambda: socket.socket(17, socket.SOCK_RAW, 0).close()),
    "socket(AF_PACKET | 1<<32)": lambda: call("socket", (1 << 32) | 17, socket.SOCK_RAW, 0),
}
if platform.machine() == "x86_64":
    refused["iopl(0)"] = lambda: call("iopl", 0)
    refused["ioperm"] = lambda: call("ioperm", 0, 1, 0)


def read_write():
    r, w = os.pipe()
    os.write(w, b"x")
    assert os.read(r, 1) == b"x"
    os.close(r)
    os.close(w)


def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 7


def thread():
    # glibc's pthread_create tries clone3 first: this works only if ENOSYS sends it back to clone.
    ran = []
    t = threading.Thread(target=lambda: ran.append(1))
    t.start()
    t.join()
    assert ran == [1]


def subprocess_run():
    pid = os.posix_spawn("/bin/true", ["true"], {})
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


allowed = {
    "read/write": lambda: oserror(read_write),
    "openat": lambda: oserror(lambda: os.close(os.open("/", os.O_RDONLY | os.O_DIRECTORY))),
    "fork": lambda: oserror(fork),
    "thread": lambda: oserror(thread),
    "posix_spawn": lambda: oserror(subprocess_run),
    "socket(AF_INET)": lambda: oserror(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()),
    "socket(AF_UNIX)": lambda: oserror(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()),
    "ioctl(TCGETS)": lambda: oserror(lambda: termios.tcgetattr(slave)),
    "ioctl(TIOCGWINSZ)": lambda: oserror(lambda: fcntl.ioctl(slave, termios.TIOCGWINSZ, b"\0" * 8)),
    "getpid": lambda: call("getpid"),
}


def run(checks):
    out = {}
    for name, check in checks.items():
        try:
            out[name] = check()
        except Exception as e:  # a check that breaks is reported, and fails the test as a wrong value
            out[name] = f"{type(e).__name__}: {e}"
    return out


def open_for_writing(path):
    # Opening is the test; nothing is written, so a file that opens (a failure) is left as it was.
    return oserror(lambda: os.close(os.open(path, os.O_WRONLY)))


def status():
    lines = open("/proc/self/status").read().splitlines()
    return {k: v.strip() for k, _, v in (line.partition(":") for line in lines) if k in ("Seccomp", "CapEff")}


print(
    json.dumps(
        {
            "refused": run(refused),
            "allowed": run(allowed),
            "writes": {p: open_for_writing(p) for p in ("/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger")},
            "status": status(),
            "fds": FDS_AT_START,
        }
    )
)
