"""Confining a process that runs a student's code, by the operating system's kernel: Landlock and seccomp.

A guard written in Python cannot confine Python: the student's code runs in
the same interpreter and can undo it.  What the kernel enforces, it cannot.
`confine` is called in a fresh fork, after the kit is imported and before any
student code runs, and from then on that process (and nothing else):

* reads only what running Python needs (the interpreter's and the packages'
  folders, the system's libraries, the kit's data) and, of the kit itself,
  only the files of modules not yet loaded: the source of every loaded kit
  module, the exercises' references among them, cannot be read again
  (``runpy`` or ``importlib.reload`` find nothing), and the course directory
  (sources, submissions, gradebook, config and its secret), the solutions and
  everything else on the machine are out of reach (Landlock, filesystem);
* writes only inside its own folder, and to /dev/null (Landlock);
* starts no process and runs no program (seccomp: fork, vfork, clone without
  CLONE_THREAD, execve, execveat; Landlock: execute), sends no signal to, and
  traces or reads the memory of, no process but itself (seccomp: kill, tgkill,
  pidfd_*, ptrace, process_vm_*; Landlock: signal scope), and opens no socket
  of any kind (seccomp: socket, socketpair; Landlock: TCP bind and connect);
* gains no privilege (no_new_privs) and cannot leave its confinement: the
  syscalls that could (mount, unshare, setns, io_uring, bpf, userfaultfd,
  perf_event_open, keyctl, TIOCSTI) are refused too.

A refused call fails with EPERM (PermissionError in Python): the student's
function then raises, and its check says what it did.

Where a defence is missing (Linux without Landlock, a CPU other than x86-64
or arm64 for the seccomp filter, another operating system) `confine` applies
what it can and returns a `Confinement` that says which defence was off; the
grader writes that into its log and into the gradebook comment.  Nothing is
skipped silently.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Confinement", "confine", "confine_kernel", "prepare", "probe"]


@dataclass
class Confinement:
    """Which defences hold in a confined process: each is "on" or "off: <why>"."""

    filesystem: str = "off: not applied"
    processes: str = "off: not applied"
    signals: str = "off: not applied"
    network: str = "off: not applied"

    def missing(self) -> list[str]:
        """The sentences naming each defence that is off (empty when every one holds)."""
        return [f"{name}: {state[5:]}" for name, state in vars(self).items()
                if isinstance(state, str) and state.startswith("off")]

    def as_dict(self) -> dict:
        return {"filesystem": self.filesystem, "processes": self.processes, "signals": self.signals,
                "network": self.network}


# ---------------------------------------------------------------------------
# Landlock (Linux 5.13+; ABI 4 adds TCP, ABI 6 signal scoping).  uapi/linux/landlock.h.
# ---------------------------------------------------------------------------
_SYS_LANDLOCK = {"create_ruleset": 444, "add_rule": 445, "restrict_self": 446}   # the same on x86-64 and arm64
_LANDLOCK_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_REMOVE_DIR, _REMOVE_FILE, _MAKE_CHAR, _MAKE_DIR, _MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
_MAKE_SOCK, _MAKE_FIFO, _MAKE_BLOCK, _MAKE_SYM = 1 << 9, 1 << 10, 1 << 11, 1 << 12
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV
_READ = _READ_FILE | _READ_DIR
_WRITE = (_WRITE_FILE | _READ_FILE | _READ_DIR | _REMOVE_DIR | _REMOVE_FILE | _MAKE_DIR | _MAKE_REG | _MAKE_SYM
          | _MAKE_FIFO | _MAKE_SOCK | _REFER | _TRUNCATE)

_libc = None


def _syscall():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc.syscall


def _landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is not there (or not Linux)."""
    if sys.platform != "linux":
        return 0
    try:
        version = _syscall()(ctypes.c_long(_SYS_LANDLOCK["create_ruleset"]), None, ctypes.c_size_t(0),
                             ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def _fs_rights(abi: int) -> int:
    return _FS_BY_ABI[max(key for key in _FS_BY_ABI if key <= abi)]


def _add_path(ruleset: int, path: str, access: int, handled: int) -> bool:
    """Allow `access` beneath `path` (a folder) or on it (a file); False when the path cannot be opened."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not os.path.isdir(path):
            access &= _FILE_RIGHTS
        access &= handled
        attribute = struct.pack("=Qi", access, fd)          # struct landlock_path_beneath_attr, packed
        buffer = ctypes.create_string_buffer(attribute, len(attribute))
        result = _syscall()(ctypes.c_long(_SYS_LANDLOCK["add_rule"]), ctypes.c_int(ruleset),
                            ctypes.c_int(_RULE_PATH_BENEATH), buffer, ctypes.c_uint32(0))
        return result == 0
    finally:
        os.close(fd)


def _kit_folder() -> Path:
    """The folder of the kit's own code (its modules' source and bytecode)."""
    import importlib.resources

    return Path(str(importlib.resources.files("kgslab"))).resolve()


def _readable_roots() -> list[str]:
    """Folders Python needs to read: the interpreter's, the environment's, the system's libraries."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/share", "/usr/local/lib",
             "/sys/devices/system/cpu"}
    roots |= {entry for entry in sys.path if entry and os.path.isdir(entry)
              and any(_inside(entry, prefix) for prefix in (sys.prefix, sys.base_prefix))}
    return sorted(root for root in roots if os.path.exists(root))


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _loaded_kit_files(kit: Path) -> set[str]:
    """The source and bytecode files of every kit module this process has loaded."""
    kit_folder = os.path.realpath(str(kit)) + "/"
    sources = set()
    for module in list(sys.modules.values()):
        origin = getattr(getattr(module, "__spec__", None), "origin", None)
        if isinstance(origin, str) and origin.endswith(".py") and \
                (origin.startswith(kit_folder) or "kgslab" in origin and os.path.realpath(origin).startswith(kit_folder)):
            sources.add(os.path.realpath(origin))
    files = set(sources)
    listings: dict[str, list[str]] = {}
    for source in sources:
        folder, name = os.path.split(source)
        cache = os.path.join(folder, "__pycache__")
        if cache not in listings:
            try:
                listings[cache] = os.listdir(cache)
            except OSError:
                listings[cache] = []
        stem = name[:-3] + "."
        files |= {os.path.join(cache, entry) for entry in listings[cache]
                  if entry.startswith(stem) and entry.endswith((".pyc", ".pyo"))}
    return files


def _plan(roots: list[str], hidden: set[str]) -> list[tuple[str, int]]:
    """(path, access) rules that allow reading beneath `roots` except the `hidden` files and folders.

    Landlock only allows: a folder that holds something hidden is opened up entry by entry (its listing is
    allowed, each entry that holds nothing hidden gets its own rule), down to the hidden paths themselves.
    """
    rules: list[tuple[str, int]] = []
    hidden = {os.path.realpath(path) for path in hidden}
    above = set()                                     # every folder that holds something hidden
    for secret in hidden:
        folder = os.path.dirname(secret)
        while folder not in above and folder != os.path.dirname(folder):
            above.add(folder)
            folder = os.path.dirname(folder)
    above.add("/")

    visited: set[str] = set()

    def allow(path: str) -> None:
        path = os.path.realpath(path)             # a link (a venv's lib64) is judged by where it leads
        if path in hidden or path in visited:
            return
        visited.add(path)
        if path not in above:
            rules.append((path, _READ))
            return
        rules.append((path, _READ_DIR))
        try:
            entries = sorted(os.listdir(path))
        except OSError:
            return
        for entry in entries:
            allow(os.path.join(path, entry))

    for root in roots:
        allow(os.path.realpath(root))
    return rules


_PLANS: dict = {}


def _rules(home: str | None, kit: Path, hidden: list[str], hide_loaded: bool = True) -> list[tuple[str, int]]:
    """Every rule for a confined process: cached while the loaded kit modules and `hidden` stay the same."""
    key = (frozenset(name for name in sys.modules if name.startswith("kgslab")) if hide_loaded else None,
           frozenset(hidden))
    if key not in _PLANS:
        kit_files = _loaded_kit_files(kit) if hide_loaded else set()
        roots = _readable_roots()
        if not any(_inside(str(kit), root) for root in roots):
            roots.append(str(kit))                              # an editable install: the clone's kit folder only
        from kgslab import _resources

        data = _resources.kit_folder("data")
        roots += [str(data)] if data is not None and os.path.isdir(data) else []
        _PLANS[key] = _plan(roots, kit_files | set(hidden))
    rules = _PLANS[key] + [(f"/proc/{os.getpid()}", _READ)]                  # this process's own entries only
    rules += [("/dev/null", _READ_FILE | _WRITE_FILE), ("/dev/zero", _READ_FILE | _WRITE_FILE)]
    rules += [(path, _READ_FILE) for path in ("/dev/urandom", "/dev/random", "/etc/localtime", "/etc/ld.so.cache")]
    if home:
        rules.append((home, _WRITE))
    return rules


def _add_port(ruleset: int, port: int, access: int) -> bool:
    attribute = struct.pack("=QQ", access, port)         # struct landlock_net_port_attr
    buffer = ctypes.create_string_buffer(attribute, len(attribute))
    return _syscall()(ctypes.c_long(_SYS_LANDLOCK["add_rule"]), ctypes.c_int(ruleset), ctypes.c_int(2), buffer,
                      ctypes.c_uint32(0)) == 0


def _landlock(home: str | None, kit: Path, hidden: list[str], abi: int, *, readable: list[str] = (),
              ports: list[int] = (), hide_loaded: bool = True) -> tuple[str, str, str]:
    """Apply Landlock; (filesystem, signals, network) states."""
    handled_fs = _fs_rights(abi)
    handled_net = (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (_SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX_SOCKET) if abi >= 6 else 0
    attribute = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    buffer = ctypes.create_string_buffer(attribute[:size], size)
    rules = _rules(home, kit, hidden, hide_loaded) + [(path, _READ) for path in readable]
    if not hide_loaded:
        rules.append(("/proc", _READ_DIR))                 # a kernel lists its children (interrupts); reads none
    ruleset = _syscall()(ctypes.c_long(_SYS_LANDLOCK["create_ruleset"]), buffer, ctypes.c_size_t(size),
                         ctypes.c_uint32(0))
    if ruleset < 0:
        reason = os.strerror(ctypes.get_errno())
        return (f"off: Landlock refused a ruleset ({reason})",) * 3
    try:
        for path, access in rules:
            _add_path(ruleset, path, access, handled_fs)
        if handled_net:
            for port in ports:
                _add_port(ruleset, port, _NET_BIND_TCP | _NET_CONNECT_TCP)
            if ports:
                _add_port(ruleset, 0, _NET_BIND_TCP)        # an ephemeral port of its own (ipykernel's pipes)
        result = _syscall()(ctypes.c_long(_SYS_LANDLOCK["restrict_self"]), ctypes.c_int(ruleset),
                            ctypes.c_uint32(0))
        if result != 0:
            reason = os.strerror(ctypes.get_errno())
            return (f"off: Landlock could not restrict this process ({reason})",) * 3
    finally:
        os.close(ruleset)
    signals = "on" if abi >= 6 else f"off: Landlock ABI {abi} has no signal scoping (needs 6)"
    network = "on" if abi >= 4 else f"off: Landlock ABI {abi} has no network rules (needs 4)"
    return "on", signals, network


# ---------------------------------------------------------------------------
# seccomp: a BPF filter of the syscalls a grading child never needs.
# ---------------------------------------------------------------------------
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_SYSCALLS = {
    "x86_64": {
        "refused": {"fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "ptrace": 101,
                    "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_open": 434,
                    "pidfd_send_signal": 424, "pidfd_getfd": 438, "socket": 41, "socketpair": 53,
                    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "userfaultfd": 323,
                    "bpf": 321, "perf_event_open": 298, "keyctl": 250, "add_key": 248, "request_key": 249,
                    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272,
                    "setns": 308, "kcmp": 312, "process_madvise": 440, "personality": 135, "tkill": 200,
                    "fsopen": 430, "fsmount": 432, "open_tree": 428, "move_mount": 429},
        "clone": 56, "clone3": 435, "kill": 62, "tgkill": 234, "rt_sigqueueinfo": 129,
        "rt_tgsigqueueinfo": 297, "ioctl": 16},
    "aarch64": {
        "refused": {"execve": 221, "execveat": 281, "ptrace": 117, "process_vm_readv": 270,
                    "process_vm_writev": 271, "pidfd_open": 434, "pidfd_send_signal": 424, "pidfd_getfd": 438,
                    "socket": 198, "socketpair": 199, "io_uring_setup": 425, "io_uring_enter": 426,
                    "io_uring_register": 427, "userfaultfd": 282, "bpf": 280, "perf_event_open": 241,
                    "keyctl": 219, "add_key": 217, "request_key": 218, "mount": 40, "umount2": 39,
                    "pivot_root": 41, "chroot": 51, "unshare": 97, "setns": 268, "kcmp": 272,
                    "process_madvise": 440, "personality": 92, "tkill": 130, "fsopen": 430, "fsmount": 432,
                    "open_tree": 428, "move_mount": 429},
        "clone": 220, "clone3": 435, "kill": 129, "tgkill": 131, "rt_sigqueueinfo": 138,
        "rt_tgsigqueueinfo": 240, "ioctl": 29},
}
_CLONE_THREAD = 0x00010000
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
_RET_ALLOW, _RET_KILL_PROCESS = 0x7FFF0000, 0x80000000
_LD_ABS_W, _JEQ, _JSET, _JGE, _RET = 0x20, 0x15, 0x45, 0x35, 0x06
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24


def _errno(number: int) -> int:
    return 0x00050000 | number


_KERNEL_ALLOWED = {"fork", "vfork", "socket", "socketpair", "execve", "execveat"}
_KERNEL_REFUSED = {"x86_64": {"setsid": 112, "setpgid": 109}, "aarch64": {"setsid": 157, "setpgid": 154}}


_DENY = _errno(errno.EPERM)


def _program(machine: str, refused, middle: list) -> list[tuple[int, int, int, int]]:
    """A filter program, as (code, jt, jf, k) instructions: another architecture's calls kill the process, the
    x32 ABI's numbers and the `refused` ones fail with EPERM, then `middle` (the calls allowed with conditions),
    then no input pushed into a terminal, and everything else allowed."""
    table = _SYSCALLS[machine]
    program = [(_LD_ABS_W, 0, 0, _ARCH), (_JEQ, 1, 0, _AUDIT_ARCH[machine]), (_RET, 0, 0, _RET_KILL_PROCESS),
               (_LD_ABS_W, 0, 0, _NR)]
    if machine == "x86_64":                                     # the x32 ABI's numbers: never
        program += [(_JGE, 0, 1, 0x40000000), (_RET, 0, 0, _DENY)]
    for number in sorted(refused):
        program += [(_JEQ, 0, 1, number), (_RET, 0, 0, _DENY)]
    program += middle
    program += [(_JEQ, 0, 4, table["ioctl"]), (_LD_ABS_W, 0, 0, _ARG1), (_JEQ, 1, 0, _TIOCSTI),
                (_JEQ, 0, 1, _TIOCLINUX), (_RET, 0, 0, _DENY)]
    return program + [(_RET, 0, 0, _RET_ALLOW)]


def _kernel_filter(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter of a graded notebook's kernel: it may fork (its checks do) and open its own sockets (Landlock
    limits them to its ports, and forbids running programs), but may not leave its process group (so that all it
    started ends with it), trace or read another process, or leave its confinement."""
    refused = {name: number for name, number in _SYSCALLS[machine]["refused"].items() if name not in _KERNEL_ALLOWED}
    refused.update(_KERNEL_REFUSED[machine])
    return _program(machine, refused.values(), [])


def _filter(machine: str, pid: int) -> list[tuple[int, int, int, int]]:
    """The grading child's filter: no process, no socket, signals to itself only."""
    table = _SYSCALLS[machine]
    program = [(_JEQ, 0, 1, table["clone3"]), (_RET, 0, 0, _errno(errno.ENOSYS))]   # glibc falls back to clone
    # clone: threads only (a new process would be a fork)
    program += [(_JEQ, 0, 4, table["clone"]), (_LD_ABS_W, 0, 0, _ARG0), (_JSET, 0, 1, _CLONE_THREAD),
                (_RET, 0, 0, _RET_ALLOW), (_RET, 0, 0, _DENY)]
    # signals: to this process only (kill's 0 is its own group, which it alone is in)
    for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        if name == "kill":
            body = [(_LD_ABS_W, 0, 0, _ARG0), (_JEQ, 2, 0, pid), (_JEQ, 1, 0, 0)]
        else:
            body = [(_LD_ABS_W, 0, 0, _ARG0), (_JEQ, 1, 0, pid)]
        body += [(_RET, 0, 0, _DENY), (_RET, 0, 0, _RET_ALLOW)]
        program += [(_JEQ, 0, len(body), table[name])] + body
    return _program(machine, table["refused"].values(), program)


def _seccomp(kernel: bool = False) -> str:
    machine = platform.machine()
    if sys.platform != "linux":
        return f"off: seccomp is Linux's ({sys.platform})"
    if machine not in _SYSCALLS:
        return f"off: the kit's seccomp filter knows x86_64 and aarch64, not {machine}"
    program = _kernel_filter(machine) if kernel else _filter(machine, os.getpid())
    raw = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    filters = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program), ctypes.cast(filters, ctypes.c_void_p))
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    pr_set_seccomp, mode_filter = 22, 2
    if prctl(pr_set_seccomp, mode_filter, ctypes.byref(fprog), 0, 0) != 0:
        return f"off: the kernel refused the seccomp filter ({os.strerror(ctypes.get_errno())})"
    return "on"


def _no_new_privileges() -> bool:
    if sys.platform != "linux":
        return False
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    pr_set_no_new_privs = 38
    return prctl(pr_set_no_new_privs, 1, 0, 0, 0) == 0


def prepare(hidden: list[str] = ()) -> None:
    """Work out the rules `confine(..., hidden=hidden)` will need, here, so that a fork only applies them."""
    _rules(None, _kit_folder(), list(hidden))


def confine(home: str | None, *, hidden: list[str] = ()) -> Confinement:
    """Confine this process from now on (see the module's docstring); what holds is returned.

    `home` is the one folder it may write (None: none); `hidden` files and
    folders it may not read although they lie in Python's own (an outside
    package taken out, `closed.take_out`).  Call it in a process of
    one thread (a fresh fork): Landlock and seccomp bind the calling thread and
    the threads and processes it starts afterwards.
    """
    kit = _kit_folder()
    state = Confinement()
    if not _no_new_privileges():
        state.processes = state.filesystem = state.signals = state.network = \
            f"off: not Linux ({sys.platform})" if sys.platform != "linux" else "off: no_new_privs refused"
        return state
    abi = _landlock_abi()
    if abi:
        state.filesystem, landlock_signals, landlock_network = _landlock(home, kit, list(hidden), abi)
    else:
        state.filesystem = "off: this kernel has no Landlock (Linux 5.13+ with landlock in its LSM list)"
        landlock_signals = landlock_network = "off: no Landlock"
    seccomp = _seccomp()
    state.processes = seccomp
    # Either mechanism holds signals and the network on its own; both together when both are on.
    state.signals = "on" if seccomp == "on" or landlock_signals == "on" else landlock_signals
    state.network = "on" if seccomp == "on" or landlock_network == "on" else landlock_network
    return state


def confine_kernel(home: str, *, readable: list[str], ports: list[int]) -> Confinement:
    """Confine a graded notebook's kernel (`kgslab.check.graded_kernel`) before it starts.

    It reads what Python needs, the kit, its own notebook's folder and its connection file (`readable`); writes
    only in `home`; binds and connects only its own TCP `ports`; runs no program (Landlock's execute right);
    signals no process outside itself and what it forks (Landlock's signal scope); and cannot leave its process
    group or confinement, trace or read another process (seccomp), so that killing the group ends all it started.
    """
    kit = _kit_folder()
    state = Confinement()
    if not _no_new_privileges():
        state.processes = state.filesystem = state.signals = state.network = "off: no_new_privs refused"
        return state
    abi = _landlock_abi()
    if abi:
        state.filesystem, state.signals, state.network = _landlock(home, kit, [], abi, readable=readable,
                                                                   ports=ports, hide_loaded=False)
        if state.filesystem == "on":
            state.processes = "on"                       # no program can be run (execute is never allowed)
    else:
        state.filesystem = state.signals = state.network = \
            "off: this kernel has no Landlock (Linux 5.13+ with landlock in its LSM list)"
    seccomp = _seccomp(kernel=True)
    if seccomp != "on":
        state.processes = seccomp
    elif state.processes != "on":
        state.processes = "off: programs can be run (no Landlock)"
    return state


def probe() -> dict:
    """What `confine` would get here, without confining this process: {"landlock_abi": n, "seccomp": bool}."""
    return {"landlock_abi": _landlock_abi(), "seccomp": sys.platform == "linux" and platform.machine() in _SYSCALLS}
