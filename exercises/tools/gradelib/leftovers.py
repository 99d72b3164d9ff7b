"""What a student's uid can leave on the machine once its processes are gone, found and removed
(the `user` sandbox: bubblewrap gives every run a /tmp, a /dev and IPC objects of its own).

A uid with no groups and no folder of its own outside the grader's work folder can create files
only in world-writable folders (/tmp, /var/tmp, /dev/shm, /run/lock, /dev/mqueue and any other
the system has), and System V IPC objects (shared memory, semaphores, message queues). Both
outlive the processes: a file planted in /tmp or a shared-memory segment left by one student is
there for the next, and a segment nobody removes holds its memory until the machine restarts.

    folders = shared_folders()                      # once: every world-writable folder
    remove(uids, folders)                           # their files and IPC objects
    leftovers(uids, folders)                        # [] once nothing of them is left

Only the top level of each world-writable folder needs looking at: anything deeper was created
inside a folder the uid owns (removed whole) or inside another world-writable folder (looked at
on its own).
"""

import ctypes
import errno
import os
import stat

_libc = ctypes.CDLL(None, use_errno=True)
_IPC_RMID = 0
# (the /proc/sysvipc table, its id column, the libc call that removes one)
_IPC_TABLES = (("shm", "shmid", "shared-memory segment"), ("sem", "semid", "semaphore set"),
               ("msg", "msqid", "message queue"))
# Not walked: pseudo file systems, and network or FUSE mounts (slow, and not the grader's).
_SKIP_TYPES = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs",
               "securityfs", "pstore", "bpf", "configfs", "fusectl", "binfmt_misc", "autofs",
               "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "sshfs",
               "davfs", "afs", "lustre", "beegfs", "gpfs", "nsfs", "hugetlbfs", "rpc_pipefs"}
_ALWAYS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue", "/run/shm")
_WALK_LIMIT = 3_000_000   # entries: past this the walk stops (and says so)
_cache = None


def _mounts():
    """{mount point: file system type} of this machine."""
    out = {}
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3:
                    out[parts[1].replace("\\040", " ")] = parts[2]
    except OSError:
        pass
    return out


def _world_writable(path):
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and bool(info.st_mode & stat.S_IWOTH)


def shared_folders():
    """(every world-writable folder of the local file systems, complete?): walked once per
    process. `/dev` is left out but for its shared-memory and message-queue folders."""
    global _cache
    if _cache is not None:
        return _cache
    mounts = _mounts()
    skip = {m for m, kind in mounts.items() if kind in _SKIP_TYPES or kind.startswith("fuse")}
    skip |= {"/proc", "/sys", "/dev"}
    found = {p for p in _ALWAYS if _world_writable(p)}
    seen, complete, stack = 0, True, ["/"]
    while stack:
        folder = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                seen += 1
                try:
                    if not entry.is_dir(follow_symlinks=False):
                        continue
                    if entry.stat(follow_symlinks=False).st_mode & stat.S_IWOTH:
                        found.add(entry.path)
                except OSError:
                    continue
                if entry.path not in skip:
                    stack.append(entry.path)
        if seen > _WALK_LIMIT:
            complete = False
            break
    _cache = (sorted(found), complete)
    return _cache


def _ipc_objects():
    """[(kind, id, owner uid, creator uid, what)] of every System V IPC object."""
    out = []
    for kind, id_column, what in _IPC_TABLES:
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                header = f.readline().split()
                rows = [line.split() for line in f]
        except OSError:
            continue
        try:
            at_id, at_uid, at_cuid = (header.index(c) for c in (id_column, "uid", "cuid"))
        except ValueError:
            continue
        for row in rows:
            try:
                out.append((kind, int(row[at_id]), int(row[at_uid]), int(row[at_cuid]), what))
            except (IndexError, ValueError):
                continue
    return out


def _remove_ipc(kind, ident):
    if kind == "shm":
        return _libc.shmctl(ctypes.c_int(ident), _IPC_RMID, None) == 0
    if kind == "sem":
        return _libc.semctl(ctypes.c_int(ident), 0, _IPC_RMID) == 0
    return _libc.msgctl(ctypes.c_int(ident), _IPC_RMID, None) == 0


def _owned(folders, uids):
    """(path, is a folder, uid) of every entry that one of `uids` owns at the top of a
    folder."""
    out = []
    for folder in folders:
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_uid in uids:
                    out.append((entry.path, stat.S_ISDIR(info.st_mode), info.st_uid))
    return out


def remove_tree(path):
    """Removes a file or a folder tree, however deep (no recursion: a tree 100,000 levels
    deep is no harder than a flat one), without following a symbolic link anywhere, and
    whatever modes its folders have (a folder its owner made unreadable or unwritable is
    opened up first). Returns [] once it is gone, else what could not be removed (at most five
    paths): the caller decides what that means for whom."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return []
    except OSError as e:
        return [f"{path}: {e.strerror}"]
    if not stat.S_ISDIR(info.st_mode):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            return [f"{path}: {e.strerror}"]
        return []
    problems = []

    def note(what, e):
        if len(problems) < 5:
            problems.append(f"{what}: {e.strerror or e}")

    def open_folder(fd, name, identity):
        """A folder inside `fd`, opened without following links, checked to be the one seen."""
        try:
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        except PermissionError:
            os.chmod(name, 0o700, dir_fd=fd, follow_symlinks=False)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        st = os.fstat(child)
        if (st.st_dev, st.st_ino) != identity:
            os.close(child)
            raise OSError(errno.ESTALE, "the folder changed while it was removed")
        if stat.S_IMODE(st.st_mode) & 0o700 != 0o700:
            os.fchmod(child, stat.S_IMODE(st.st_mode) | 0o700)
        return child

    # The walk holds one open folder (the deepest) and, for each level above it, the name and
    # identity of the folder and the subfolders still to remove there; it goes up through
    # "..", checked against the identity it remembers, so that neither the recursion limit
    # nor the open-files limit applies however deep the tree is.
    parent = os.path.dirname(os.path.abspath(path)) or "/"
    try:
        current = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as e:
        return [f"{parent}: {e.strerror}"]
    st = os.fstat(current)
    stack = [[None, (st.st_dev, st.st_ino),
              [(os.path.basename(os.path.abspath(path)), (info.st_dev, info.st_ino))]]]
    try:
        while True:
            name, identity, todo = stack[-1]
            if todo:
                sub, sub_identity = todo.pop()
                try:
                    child = open_folder(current, sub, sub_identity)
                except OSError as e:
                    note(sub, e)
                    continue
                folders = []
                with os.scandir(child) as entries:
                    for entry in entries:
                        try:
                            est = entry.stat(follow_symlinks=False)
                        except FileNotFoundError:
                            continue
                        if stat.S_ISDIR(est.st_mode):
                            folders.append((entry.name, (est.st_dev, est.st_ino)))
                            continue
                        try:
                            os.unlink(entry.name, dir_fd=child)
                        except FileNotFoundError:
                            pass
                        except OSError as e:
                            note(entry.path, e)
                os.close(current)
                current = child
                stack.append([sub, sub_identity, folders])
                continue
            if len(stack) == 1:
                break
            stack.pop()
            up = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=current)
            st = os.fstat(up)
            os.close(current)
            current = up
            if (st.st_dev, st.st_ino) != stack[-1][1]:
                raise OSError(errno.ESTALE, "a folder moved while it was removed")
            try:
                os.rmdir(name, dir_fd=current)
            except FileNotFoundError:
                pass
            except OSError as e:
                note(name, e)
    except OSError as e:
        note(path, e)
    finally:
        try:
            os.close(current)
        except OSError:
            pass
    return problems


def neutralize(path):
    """What could not be removed is taken from its owner: root's, mode 0 (a folder's contents
    are out of every other uid's reach once nobody may enter it)."""
    try:
        os.lchown(path, 0, 0)
        if not os.path.islink(path):
            os.chmod(path, 0)
        return True
    except OSError:
        return False


def remove(uids, folders):
    """Removes the files and IPC objects of `uids` (their processes must be gone: a segment
    still attached is only marked for removal). Returns what could not be removed (each
    taken from its owner, see neutralize), one line each."""
    uids = set(uids)
    failed = []
    for path, _, uid in _owned(folders, uids):
        problems = remove_tree(path)
        if problems:
            kept = "taken from uid %d, mode 0" % uid if neutralize(path) else "still its"
            failed.append(f"{path} (uid {uid}; {kept}): {problems[0]}")
    for kind, ident, uid, cuid, _ in _ipc_objects():
        if uid in uids or cuid in uids:
            _remove_ipc(kind, ident)
    return failed


def leftovers(uids, folders):
    """What `uids` still have in the shared places, one line each (empty: nothing)."""
    uids = set(uids)
    out = [f"{path} (uid {uid})" for path, _, uid in _owned(folders, uids)]
    out += [f"a System V {what}, id {ident} (uid {uid})"
            for kind, ident, uid, cuid, what in _ipc_objects() if uid in uids or cuid in uids]
    return out
