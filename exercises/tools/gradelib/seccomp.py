"""The syscall filter on every process of a student's build and runs (exercises/INSTRUCTORS.md,
"Isolation"): a seccomp BPF program that refuses the system calls no exercise needs.

Two filters stack on a runner; both refuse with an error (EPERM), never by killing, so that a
program sees a failed call:

* this one, installed by the sandbox before the program starts, in every mode (bubblewrap
  takes it as --seccomp FD; in the `user` and `none` modes the child installs it with prctl
  right before exec): no ptrace or process_vm_* (another process's memory), no kernel keyrings
  (they outlive the run and are shared by a uid), no mount, namespace, BPF, perf, userfaultfd,
  io_uring or personality calls, no module or reboot calls, no fallocate (it fills a disk
  faster than the watch polls; refused as unsupported, so that posix_fallocate writes instead),
  no memfd, no 32-bit or x32 system calls (they would bypass the numbers below), no System V
  shared memory attached without a GPU, and no socket but a unix one (none at all for a run without
  a GPU: students graded at the same time could otherwise meet on an abstract socket);
* the runner's own (exercises/support/runner_main.cpp, installed before any code of the
  student's runs): no execve once the runner has started, and for the CPU backend's runners no
  mprotect that opens memory unless it carries the backend's token, no executable mapping, no
  mapping at a fixed address.

Why Python and not a small C helper: the filter is a few dozen BPF instructions that the
standard library can pack (struct) and install (ctypes, prctl) in the child between fork and
exec; bubblewrap reads the same bytes from a file descriptor. Nothing to compile, nothing
that a broken toolchain could leave out.
"""

import ctypes
import os
import platform
import struct

# <linux/audit.h>, <asm/unistd_64.h>
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EPERM = 1
EAFNOSUPPORT = 97
EOPNOTSUPP = 95
ENOSYS = 38
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

# The system calls refused (x86-64 numbers), grouped by why.
DENIED = {
    # another process's memory or state
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "pidfd_getfd": 438, "process_madvise": 440,
    # kernel keyrings: they outlive the run and a later student with the same uid could read
    # them
    "add_key": 248, "request_key": 249, "keyctl": 250,
    # mounts and namespaces (the sandbox made its own before the filter)
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272,
    "setns": 308, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    # kernel interfaces no exercise uses, some of which run code in the kernel or bypass
    # the filter (io_uring)
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "personality": 135,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "fanotify_init": 300,
    "lookup_dcookie": 212, "iopl": 172, "ioperm": 173, "modify_ldt": 154,
    # the machine's
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163,
    "quotactl": 179, "quotactl_fd": 443, "syslog": 103,
}
SYS_SOCKET, SYS_SOCKETPAIR, SYS_CLONE, SYS_CLONE3 = 41, 53, 56, 435
# fallocate reserves gigabytes of disk in milliseconds, faster than the watch (watch.py) polls;
# refused as "not supported", so that the C library's posix_fallocate falls back to writing the
# blocks, at the pace the watch sees.
SYS_FALLOCATE = 285
# shmat without a GPU: a System V segment attached, filled and detached holds memory no process
# maps, which bubblewrap's IPC namespace hides from the watch; nothing without a GPU needs one.
SYS_SHMAT = 30
# memfd_create: memory no file system bounds (bubblewrap's /tmp and /dev/shm have sizes), which
# the watch can measure only where the grader may stat another process's mappings (as root); no
# exercise needs one, and the CUDA runtime makes none (the grader's GPU runs pass without it).
SYS_MEMFD_CREATE = 319
AF_UNIX = 1
# clone() flags that make namespaces (CLONE_NEWNS ... CLONE_NEWCGROUP, CLONE_NEWTIME)
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | \
    0x20000000 | 0x40000000 | 0x00000080

# BPF (linux/filter.h)
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_NR, _ARCH, _ARG0_LO = 0, 4, 16


def supported():
    """Whether this machine runs the system calls this filter knows the numbers of."""
    return platform.machine() in ("x86_64", "AMD64")


def _insn(code, jt, jf, k):
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def program(allow_unix_sockets=True):
    """The filter, as bytes (an array of struct sock_filter)."""
    out = [_insn(_LD_W_ABS, 0, 0, _ARCH),
           _insn(_JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
           _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS),      # a 32-bit system call
           _insn(_LD_W_ABS, 0, 0, _NR),
           _insn(_JGE_K, 0, 1, X32_SYSCALL_BIT),
           _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS)]      # an x32 one
    for number in sorted(set(DENIED.values())):
        out += [_insn(_JEQ_K, 0, 1, number), _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM)]
    out += [_insn(_JEQ_K, 0, 1, SYS_FALLOCATE),
            _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | EOPNOTSUPP)]
    # clone3 passes its flags in memory the filter cannot read: refused with ENOSYS, which
    # makes the C library fall back to clone(), whose flags it can.
    out += [_insn(_JEQ_K, 0, 1, SYS_CLONE3), _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS)]
    out += [_insn(_JEQ_K, 0, 3, SYS_CLONE), _insn(_LD_W_ABS, 0, 0, _ARG0_LO),
            _insn(_JSET_K, 0, 1, CLONE_NAMESPACES),
            _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
            _insn(_LD_W_ABS, 0, 0, _NR)]
    out += [_insn(_JEQ_K, 0, 1, SYS_MEMFD_CREATE), _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM)]
    if not allow_unix_sockets:
        out += [_insn(_JEQ_K, 0, 1, SYS_SHMAT), _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM)]
    for number in (SYS_SOCKET, SYS_SOCKETPAIR):
        if allow_unix_sockets:
            out += [_insn(_JEQ_K, 0, 4, number), _insn(_LD_W_ABS, 0, 0, _ARG0_LO),
                    _insn(_JEQ_K, 1, 0, AF_UNIX),
                    _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
                    _insn(_RET_K, 0, 0, SECCOMP_RET_ALLOW)]
        else:
            out += [_insn(_JEQ_K, 0, 1, number),
                    _insn(_RET_K, 0, 0, SECCOMP_RET_ERRNO | EAFNOSUPPORT)]
    out.append(_insn(_RET_K, 0, 0, SECCOMP_RET_ALLOW))
    return b"".join(out)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                        ctypes.c_ulong]


def install(code):
    """Installs a filter on this process (and what it executes); raises OSError when the
    kernel refuses. Meant for the child between fork and exec."""
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def works():
    """Whether this machine lets a process install the filter (a forked child tries)."""
    if not supported():
        return False
    code = program()
    pid = os.fork()
    if pid == 0:
        try:
            install(code)
            os._exit(0)
        except BaseException:  # noqa: BLE001
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def file_descriptor(code):
    """A file descriptor holding the filter's bytes from its start (bubblewrap's --seccomp):
    an unlinked temporary file, closed by the caller."""
    import tempfile
    fd, path = tempfile.mkstemp(prefix="exercise-seccomp-")
    os.unlink(path)
    os.write(fd, code)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
