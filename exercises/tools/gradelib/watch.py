"""Watching a sandboxed run while it runs (sandbox.Sandbox.run): it is stopped early when it
sits idle, when it fills the disk or the memory behind /dev/shm, or when its processes hold
more memory than a run may.

* Idle: a CPU-only run (a host function, a kernel on the CPU backend, the memory model) always
  has work to do: at every moment one of its processes is running or waiting for a CPU
  (state R: a busy machine slows it down, never makes it idle). The moments when none is
  add up, whether in one stretch or scattered (a submission that sleeps 4.5 s and spins 0.1 s
  in every call); once they reach `idle_s` plus a tenth of the run's time so far, the run is
  sleeping or waiting for something that never comes (a deadlock, a read from a pipe nobody
  writes). Waiting for it until its deadline only spends the submission's time budget and the
  grading machine's.
* Disk: a run may write files (its own folder, the temporary folders) until less than
  RESERVE_BYTES is left on a file system, or until it has taken QUOTA_BYTES there: past that
  the next student, or the grader's own reports, would find the disk full.
* Memory: each process's address space is limited, but not their sum: many processes that
  each stay under the limit could still push the machine into swapping or its out-of-memory
  killer, which may pick the grader. A run whose processes together hold more than
  memory_limit() resident is stopped. Shared memory that no process maps is no process's
  resident memory, so the run's also counts: the memfds and deleted files of a memory file
  system that its processes hold open or map (a page of one mapped keeps all of it), and the
  System V segments of its uid or processes that
  nothing maps (where the grader can see them: a run without a GPU may attach none, the
  syscall filter refuses shmat; bubblewrap's /tmp and /dev/shm have sizes of their own).
"""

import os
import time

POLL_S = 0.25
IDLE_SHARE = 0.1            # idle time allowed beyond idle_s, as a share of the run's time
QUOTA_BYTES = 2 << 30       # what one run may take on a file system
RESERVE_BYTES = 1 << 30     # what every file system keeps free
_TICK = os.sysconf("SC_CLK_TCK")


def _unnamed(target):
    """Whether a file a process holds or maps has no name left: a memfd, or a deleted file of
    /tmp or /dev/shm (memory file systems)."""
    return target.startswith("/memfd:") or (target.endswith(" (deleted)") and
                                            target.startswith(("/tmp/", "/dev/shm/")))


def _held_files(pids):
    """Bytes of the memfds and deleted /tmp or /dev/shm files that these processes hold open
    or map (each file once: a file closed after one page of it was mapped is still held). A
    mapping's file can be measured only with the right to stat another process's mappings
    (root); a grader without it sees the files held open, and the syscall filter refuses
    memfds, so what is left is bubblewrap's /tmp and /dev/shm, which have sizes of their own."""
    seen, mapped, total = set(), set(), 0

    def count(link):
        nonlocal total
        try:
            info = os.stat(link)
        except OSError:
            return
        if (info.st_dev, info.st_ino) not in seen:
            seen.add((info.st_dev, info.st_ino))
            total += info.st_blocks * 512

    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            fds = []
        for fd in fds:
            link = f"/proc/{pid}/fd/{fd}"
            try:
                if _unnamed(os.readlink(link)):
                    count(link)
            except OSError:
                continue
        try:
            with open(f"/proc/{pid}/maps") as f:
                maps = f.read().splitlines()
        except OSError:
            continue
        for line in maps:  # one stat per file, not per mapping (a run may map one file 65k times)
            fields = line.split(None, 5)
            if len(fields) == 6 and _unnamed(fields[5]) and (fields[3], fields[4]) not in mapped:
                mapped.add((fields[3], fields[4]))
                count(f"/proc/{pid}/map_files/{fields[0]}")
    return total


def _unmapped_segments(pids, uid):
    """Bytes resident in the System V shared memory segments that nothing maps, of this uid or
    created by these processes (those the grader's IPC namespace shows)."""
    total = 0
    try:
        with open("/proc/sysvipc/shm") as f:
            header = f.readline().split()
            rows = [line.split() for line in f]
    except OSError:
        return 0
    column = {name: i for i, name in enumerate(header)}
    need = ("size", "cpid", "nattch", "cuid")
    if any(name not in column for name in need):
        return 0
    for row in rows:
        try:
            cpid, nattch, cuid = (int(row[column[n]]) for n in ("cpid", "nattch", "cuid"))
            held = int(row[column["rss"]]) if "rss" in column else int(row[column["size"]])
        except (IndexError, ValueError):
            continue
        if nattch == 0 and (cpid in pids or (uid is not None and cuid == uid)):
            total += held
    return total


def shared_memory(pids, uid):
    """What a run holds in shared memory that no process of it maps."""
    return _held_files(pids) + _unmapped_segments(set(pids), uid)


def memory_limit():
    """What one run's processes may hold resident together: 8 GiB, or half the machine's
    memory where that is less."""
    try:
        with open("/proc/meminfo") as f:
            total = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemTotal:"))
    except (OSError, StopIteration, ValueError):
        total = 16 << 30
    return min(8 << 30, total // 2)


_PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat_fields(pid):
    """(ppid, session, cpu seconds of the process and its reaped children, resident bytes,
    state letter) or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()  # after the command name, which may hold spaces
    try:
        ppid, session = int(fields[1]), int(fields[3])
        ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        resident = int(fields[21]) * _PAGE
    except (IndexError, ValueError):
        return None
    return ppid, session, ticks / _TICK, resident, fields[0]


def _uid_of(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def run_processes(root_pid, uid=None):
    """{pid: (cpu seconds, resident bytes, state)} of a run's processes: its root's session and
    descendants, what came back to us as the subreaper, and every process of the student's
    uid."""
    table, me = {}, os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields:
                table[int(entry)] = fields
    children = {}
    for pid, (ppid, _, _, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    members = {pid for pid, (_, session, _, _, _) in table.items() if session == root_pid}
    todo = [root_pid] + [p for p in children.get(me, []) if p != root_pid]
    while todo:
        pid = todo.pop()
        if pid in table:
            members.add(pid)
        todo.extend(children.get(pid, []))
    if uid is not None:
        members |= {pid for pid in table if _uid_of(pid) == uid}
    return {pid: table[pid][2:] for pid in members if pid in table}


def _free(path):
    try:
        s = os.statvfs(path)
    except OSError:
        return None
    return s.f_bavail * s.f_frsize


class Watch:
    """Checked every POLL_S by the sandbox; `check()` says why to stop the run, or None."""

    def __init__(self, root_pid, uid, idle_s, folders, memory=None):
        self.root_pid, self.uid, self.idle_s = root_pid, uid, idle_s
        self.memory = memory_limit() if memory is None else memory
        self.start = self.last_poll = time.monotonic()
        self.idle = 0.0   # seconds (summed over polls) with no process of the run running
        self.disks = {}
        for folder in folders:
            try:
                device = os.stat(folder).st_dev
            except OSError:
                continue
            free = _free(folder)
            if device not in self.disks and free is not None:
                self.disks[device] = (folder, free)

    def _idle(self, now, processes):
        """Adds the time since the last poll to the idle time when no process of the run is
        running or waiting for a CPU; whether the idle time is past what a run may have."""
        elapsed, self.last_poll = now - self.last_poll, now
        if not any(state == "R" for _, _, state in processes.values()):
            self.idle += elapsed
        return self.idle >= self.idle_s + IDLE_SHARE * (now - self.start)

    def check(self, now=None):
        now = time.monotonic() if now is None else now
        for folder, before in self.disks.values():
            free = _free(folder)
            if free is None:
                continue
            if before - free > QUOTA_BYTES or (free < RESERVE_BYTES and free < before):
                return (f"stopped: it filled the disk ({(before - free) >> 20} MB written "
                        f"under {folder}, {free >> 20} MB left)")
        processes = run_processes(self.root_pid, self.uid)
        resident = sum(rss for _, rss, _ in processes.values())
        shared = shared_memory(list(processes), self.uid)
        if resident + shared > self.memory:
            more = f", and {shared >> 20} MB of shared memory nothing maps" if shared else ""
            return (f"stopped: its processes held {resident >> 20} MB of memory together{more} "
                    f"(at most {self.memory >> 20} MB)")
        if self.idle_s and self._idle(now, processes):
            return (f"stopped: it used no CPU for {self.idle:.0f} s of its {now - self.start:.0f} "
                    f"s (sleeping, or waiting for something that never comes)")
        return None
