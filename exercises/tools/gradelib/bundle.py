"""Where the solutions live: an encrypted bundle in the repository, and a lock that lets anyone
check the committed stubs against it without the key.

    exercises/instructor.tar.gz.gpg   solutions, hidden tests and planted faults, encrypted
                                      (gpg --symmetric, AES-256) with the instructors' passphrase
    exercises/instructor.lock.json    sha256 of the bundle and of every stub that `seal` wrote
    exercises/instructor/             the unsealed working copy (ignored by git)
    exercises/instructor.key          the passphrase (ignored by git; or $EXERCISES_KEY)

`seal` strips the solutions into the stubs, so the stubs, the lock and the bundle always come
from the same solution sources. The key-less check (CI) proves that the committed stubs and
bundle are the ones `seal` wrote together; the full check (instructors, or CI given the key)
strips the solutions again and compares byte for byte.
"""

import gzip
import hashlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile

from .strip import strip_solution

LOCK_FORMAT = 1


class BundleError(RuntimeError):
    pass


def sha256_bytes(data):
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    with open(path, "rb") as f:
        return sha256_bytes(f.read())


# ---------------------------------------------------------------------------------------------
# The key and gpg
# ---------------------------------------------------------------------------------------------

def key_source(key_file=None, default_path=None):
    """The file read_key reads the passphrase from (None: $EXERCISES_KEY, or no key)."""
    if key_file is None and os.environ.get("EXERCISES_KEY"):
        return None
    path = key_file or os.environ.get("EXERCISES_KEY_FILE") or default_path
    return path if path and path != "-" and os.path.exists(path) else None


def read_key(key_file=None, default_path=None):
    """The passphrase: --key-file, else $EXERCISES_KEY, else $EXERCISES_KEY_FILE, else the
    default file. A key file may be a pipe (`--key-file <(pass show course/exercises)`, or
    `-` for standard input), so that the passphrase never lies on disk. Returns None when
    there is none."""
    if key_file is None and os.environ.get("EXERCISES_KEY"):
        key = os.environ["EXERCISES_KEY"].strip()
    elif key_file == "-":
        key = sys.stdin.readline().strip()
    else:
        path = key_file or os.environ.get("EXERCISES_KEY_FILE") or default_path
        if not path or not os.path.exists(path) or os.path.isdir(path):
            if key_file:
                raise BundleError(f"no key file at {key_file}")
            return None
        with open(path, encoding="utf-8") as f:
            key = f.readline().strip()
    if len(key) < 16:
        raise BundleError("the passphrase must be at least 16 characters")
    from . import reports
    reports.add_secret(key)  # never in a report, whatever a submission managed to read
    return key


def readable_by_others(path):
    """Whether a file (or the key in it) can be read by users other than its owner: its mode
    lets group or others read it (a pipe or standard input: no)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and bool(info.st_mode & 0o044)


def _gpg(args, passphrase, data):
    if not shutil.which("gpg"):
        raise BundleError("gpg is not installed (Debian/Ubuntu: apt-get install gnupg)")
    home = tempfile.mkdtemp(prefix="exercises-gnupg-")  # never touches the user's keyring
    os.chmod(home, 0o700)
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, passphrase.encode("utf-8") + b"\n")
        os.close(write_fd)
        argv = ["gpg", "--homedir", home, "--batch", "--yes", "--quiet", "--no-tty",
                "--pinentry-mode", "loopback", "--passphrase-fd", str(read_fd),
                "--no-symkey-cache"] + args
        proc = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              pass_fds=(read_fd,))
    finally:
        os.close(read_fd)
        subprocess.run(["gpgconf", "--homedir", home, "--kill", "all"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(home, ignore_errors=True)
    if proc.returncode != 0:
        raise BundleError("gpg failed: " + proc.stderr.decode("utf-8", "replace").strip())
    return proc.stdout


def encrypt(data, passphrase):
    return _gpg(["--symmetric", "--cipher-algo", "AES256", "--s2k-digest-algo", "SHA512",
                 "--s2k-mode", "3", "--s2k-count", "65011712", "--output", "-"], passphrase, data)


def decrypt(data, passphrase):
    return _gpg(["--decrypt", "--output", "-"], passphrase, data)


# ---------------------------------------------------------------------------------------------
# Deterministic archives
# ---------------------------------------------------------------------------------------------

def folder_files(folder):
    files = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            files.append(os.path.relpath(os.path.join(dirpath, name), folder))
    return sorted(files)


def make_archive(folder, files):
    """A tar.gz of `files` (relative to folder) that depends on their content only."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(files):
            with open(os.path.join(folder, rel), "rb") as f:
                data = f.read()
            info = tarfile.TarInfo(rel.replace(os.sep, "/"))
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def read_archive(data):
    """{relative path: bytes} of a bundle's archive; refuses anything but plain files with
    relative paths inside the folder."""
    files = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            name = member.name
            parts = name.split("/")
            if not member.isfile() or name.startswith("/") or ".." in parts:
                raise BundleError(f"refusing archive member {name!r}")
            files[os.path.join(*parts)] = tar.extractfile(member).read()
    return files


# ---------------------------------------------------------------------------------------------
# seal / unseal / check
# ---------------------------------------------------------------------------------------------

class Layout:
    """Where things are, relative to the repository root."""

    def __init__(self, root):
        self.root = root
        self.exercises = os.path.join(root, "exercises")
        self.instructor = os.path.join(self.exercises, "instructor")
        self.solutions = os.path.join(self.instructor, "solutions")
        self.hidden = os.path.join(self.instructor, "hidden")
        self.planted = os.path.join(self.instructor, "planted.json")
        self.bundle = os.path.join(self.exercises, "instructor.tar.gz.gpg")
        self.lock = os.path.join(self.exercises, "instructor.lock.json")
        self.key = os.path.join(self.exercises, "instructor.key")

    def solution_of(self, exercise, filename):
        return os.path.join(self.solutions, exercise.name, filename)

    def has_solutions(self):
        return os.path.isdir(self.solutions)


def stubs_from_solutions(layout, manifest):
    """{path relative to root: stub bytes} for every student file of the manifest."""
    stubs = {}
    for e in manifest.exercises:
        for f in e.files:
            src = layout.solution_of(e, f)
            if not os.path.isfile(src):
                raise BundleError(f"no solution for {e.name}/{f}: expected {src}")
            with open(src, encoding="utf-8") as fh:
                stub = strip_solution(fh.read(), os.path.relpath(src, layout.root))
            stubs[os.path.join(e.dir, f)] = stub.encode("utf-8")
    return stubs


def write_stubs(layout, stubs, log=print):
    for rel, data in sorted(stubs.items()):
        path = os.path.join(layout.root, rel)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                if f.read() == data:
                    continue
        with open(path, "wb") as f:
            f.write(data)
        log(f"wrote stub {rel}")


def seal(layout, manifest, passphrase, log=print):
    stubs = stubs_from_solutions(layout, manifest)
    write_stubs(layout, stubs, log)
    archive = make_archive(layout.instructor, folder_files(layout.instructor))
    keep = False
    if os.path.isfile(layout.bundle):
        with open(layout.bundle, "rb") as f:
            old = f.read()
        try:
            keep = decrypt(old, passphrase) == archive
        except BundleError:
            keep = False  # a new key, or a damaged bundle: write a new one
    if keep:
        log(f"{os.path.relpath(layout.bundle, layout.root)}: unchanged")
    else:
        with open(layout.bundle, "wb") as f:
            f.write(encrypt(archive, passphrase))
        log(f"wrote {os.path.relpath(layout.bundle, layout.root)}")
    lock = {"format": LOCK_FORMAT,
            "note": "Written by `exercises/tools/grade.py seal`. Do not edit: the key-less drift "
                    "check compares the committed stubs and bundle with these hashes.",
            "bundle_sha256": sha256_file(layout.bundle),
            "stubs": {rel.replace(os.sep, "/"): sha256_bytes(data)
                      for rel, data in sorted(stubs.items())}}
    text = json.dumps(lock, indent=2) + "\n"
    with open(layout.lock, "w", encoding="utf-8") as f:
        f.write(text)
    log(f"wrote {os.path.relpath(layout.lock, layout.root)}")


def unseal(layout, passphrase, force=False, log=print):
    with open(layout.bundle, "rb") as f:
        files = read_archive(decrypt(f.read(), passphrase))
    if os.path.isdir(layout.instructor) and not force:
        current = set(folder_files(layout.instructor))
        differ = sorted(rel for rel in current | set(files)
                        if rel not in files or rel not in current
                        or open(os.path.join(layout.instructor, rel), "rb").read() != files[rel])
        if differ:
            raise BundleError(f"{layout.instructor} differs from the bundle in {len(differ)} "
                              f"file(s) ({', '.join(differ[:5])}...): seal your changes first, "
                              f"or pass --force to overwrite them")
    for rel, data in files.items():
        path = os.path.join(layout.instructor, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    log(f"unsealed {len(files)} file(s) into {os.path.relpath(layout.instructor, layout.root)}")
    return files


def unseal_hidden(layout, passphrase, dest):
    """Only the hidden tests (hidden/tests.json), into `dest` (a private folder the caller
    made): the solutions stay sealed, and nothing lands in a tree that student code reads."""
    with open(layout.bundle, "rb") as f:
        files = read_archive(decrypt(f.read(), passphrase))
    path = os.path.join("hidden", "tests.json")
    if path not in files:
        raise BundleError("the bundle has no hidden/tests.json")
    out = os.path.join(dest, "tests.json")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(files[path])
    return out


def solution_files(root, exercises):
    """{path relative to the repository: bytes} of the unsealed solutions."""
    layout = Layout(root)
    out = {}
    for e in exercises:
        for f in e.files:
            src = layout.solution_of(e, f)
            if not os.path.isfile(src):
                raise BundleError(f"no solution file {src}: unseal the solutions first "
                                  f"(`grade.py unseal`, see exercises/INSTRUCTORS.md)")
            with open(src, "rb") as fh:
                out[os.path.join(e.dir, f)] = fh.read()
    return out


def ensure_solutions(root, key_file=None, log=print):
    """Unseals the solutions if they are not unsealed yet and a key is at hand."""
    layout = Layout(root)
    if layout.has_solutions():
        return
    key = read_key(key_file, layout.key)
    if key is None:
        raise BundleError("the solutions are not unsealed (exercises/instructor/) and no key "
                          "was found: pass --key-file, set EXERCISES_KEY or EXERCISES_KEY_FILE, "
                          "or put the passphrase in exercises/instructor.key")
    unseal(layout, key, log=log)


def check_lock(layout, manifest):
    """Key-less drift check. Returns a list of problems (empty: the stubs are the sealed ones)."""
    problems = []
    if not os.path.isfile(layout.lock):
        return [f"{os.path.relpath(layout.lock, layout.root)} is missing: run `grade.py seal`"]
    with open(layout.lock, encoding="utf-8") as f:
        lock = json.load(f)
    if not os.path.isfile(layout.bundle):
        problems.append(f"{os.path.relpath(layout.bundle, layout.root)} is missing")
    elif sha256_file(layout.bundle) != lock.get("bundle_sha256"):
        problems.append("the bundle is not the one the lock records (sealed by hand, or the lock "
                        "was not committed with it): run `grade.py seal`")
    expected = {os.path.join(e.dir, f).replace(os.sep, "/") for e in manifest.exercises
                for f in e.files}
    locked = set(lock.get("stubs", {}))
    for rel in sorted(expected - locked):
        problems.append(f"{rel}: a student file of the manifest that the lock does not know")
    for rel in sorted(locked - expected):
        problems.append(f"{rel}: in the lock but not in the manifest")
    for rel in sorted(expected & locked):
        path = os.path.join(layout.root, rel)
        if not os.path.isfile(path):
            problems.append(f"{rel}: the stub is missing")
        elif sha256_file(path) != lock["stubs"][rel]:
            problems.append(f"{rel}: the committed stub is not what `seal` produced from the "
                            f"solutions (edited by hand? edit the solution and re-seal)")
    return problems


def check_strip(layout, manifest):
    """Full drift check: strip(solution) == committed stub, byte for byte."""
    import difflib
    problems = []
    for rel, data in sorted(stubs_from_solutions(layout, manifest).items()):
        path = os.path.join(layout.root, rel)
        have = open(path, "rb").read() if os.path.isfile(path) else b""
        if have != data:
            diff = "".join(difflib.unified_diff(
                have.decode("utf-8", "replace").splitlines(True),
                data.decode("utf-8", "replace").splitlines(True),
                f"{rel} (committed)", f"{rel} (stripped from the solution)", n=1))
            problems.append(f"{rel}: differs from its stripped solution:\n{diff[:3000]}")
    return problems
