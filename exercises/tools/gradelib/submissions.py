"""Reading submissions: a folder, a .zip or a .tar(.gz) per student. Only the files the manifest
lets a student edit are taken, as bytes in memory; nothing of a submission is ever unpacked
into a tree that someone else's code could read.

Refused, with a message for the roster: two submissions with the same name (alice/ and
alice.zip), symbolic or hard links, devices and other special files, paths with `..` or an
absolute path, more than MAX_FILES files or MAX_BYTES bytes, one path twice in an archive (a
zip may hold two members of one name: `unzip -n` keeps the first, Python's zipfile the last),
and a student file's name found twice at any depth, also differing only in case or Unicode
form (the file the grader grades must be the one the instructor opens).
"""

import io
import os
import re
import stat
import tarfile
import unicodedata
import zipfile

ARCHIVES = (".tar.gz", ".tgz", ".tar", ".zip")
MAX_FILES = 2000
MAX_BYTES = 64 << 20       # a whole submission
MAX_STUDENT_FILE = 1 << 20  # one student file


class SubmissionError(ValueError):
    pass


def student_of(entry):
    for ext in ARCHIVES:
        if entry.endswith(ext):
            return entry[:-len(ext)]
    return entry


def shown_name(text):
    """A name (or a message quoting one) from a submission, as logs, reports and the roster
    show it: control and format characters (terminal escape sequences, carriage returns,
    direction overrides, zero-width characters) and bytes that are not UTF-8 written as
    visible escapes, \\x1b or \\u202e, so that they never act on a terminal or a viewer."""
    out = []
    for ch in str(text):
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte os.listdir could not decode
            out.append(f"\\x{code - 0xDC00:02x}")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def safe_name(student):
    """A folder name for a student's reports: letters (any alphabet), digits, . _ - only, so
    that Zoë and Zoé stay two folders."""
    name = re.sub(r"[^\w.-]", "_", student).strip("._") or "student"
    return name[:80]


def list_submissions(folder):
    """([(student, path)], [(student, why refused)]) for a folder of submissions."""
    entries = sorted(e for e in os.listdir(folder) if not e.startswith("."))
    by_student = {}
    for entry in entries:
        by_student.setdefault(student_of(entry), []).append(entry)
    ok, refused = [], []
    for student, names in sorted(by_student.items()):
        if len(names) > 1:
            refused.append((student, f"{' and '.join(names)} are two submissions with the "
                                     f"same name; submit one"))
            continue
        path = os.path.join(folder, names[0])
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            refused.append((student, f"{names[0]} is a symbolic link"))
        elif stat.S_ISDIR(info.st_mode) or (stat.S_ISREG(info.st_mode) and
                                             names[0].endswith(ARCHIVES)):
            ok.append((student, path))
        else:
            refused.append((student, f"{names[0]} is neither a folder nor a .zip/.tar.gz"))
    # Two students whose names differ only in characters a folder name cannot hold would
    # share a report folder: refuse the later one rather than mix them.
    seen = {}
    kept = []
    for student, path in ok:
        key = safe_name(student)
        if key in seen:
            refused.append((student, f"its name maps to the same report folder as "
                                     f"{seen[key]!r}"))
            continue
        seen[key] = student
        kept.append((student, path))
    return kept, refused


def _check_member(name):
    parts = name.replace("\\", "/").split("/")
    if name.startswith("/") or ".." in parts or re.match(r"^[A-Za-z]:", name):
        raise SubmissionError(f"refusing member {name!r} (absolute path or ..)")


def _members_of_folder(folder):
    out, total = {}, 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            rel = os.path.relpath(path, folder)
            if stat.S_ISLNK(info.st_mode):
                raise SubmissionError(f"{rel} is a symbolic link")
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                raise SubmissionError(f"{rel} is not a regular file")
            if info.st_nlink > 1:
                raise SubmissionError(f"{rel} is a hard link")
            total += info.st_size
            out[rel] = path
            if len(out) > MAX_FILES or total > MAX_BYTES:
                raise SubmissionError(f"more than {MAX_FILES} files or {MAX_BYTES >> 20} MB")
    return {rel: (lambda p=p: _read_limited(p)) for rel, p in out.items()}


def _read_limited(path):
    with open(path, "rb") as f:
        data = f.read(MAX_STUDENT_FILE + 1)
    return data


def _members_of_zip(path):
    out, total = {}, 0
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        if len(infos) > MAX_FILES:
            raise SubmissionError(f"more than {MAX_FILES} files")
        seen = {}
        for info in infos:
            _check_member(info.filename)
            key = _relative(info.filename).rstrip("/")
            if key in seen and not info.is_dir():
                raise SubmissionError(f"{info.filename} is in the archive twice (also as "
                                      f"{seen[key]}): keep one")
            seen[key] = info.filename
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise SubmissionError(f"{info.filename} is a symbolic link")
            if info.is_dir():
                continue
            total += info.file_size
            if total > MAX_BYTES:
                raise SubmissionError(f"more than {MAX_BYTES >> 20} MB")
            if info.file_size <= MAX_STUDENT_FILE:
                out[info.filename] = z.read(info)
            else:
                out[info.filename] = b"\0" * (MAX_STUDENT_FILE + 1)
    return {rel: (lambda d=d: d) for rel, d in out.items()}


def _members_of_tar(path):
    out, total, seen = {}, 0, set()
    with tarfile.open(path) as tar:
        for i, member in enumerate(tar):
            if i >= MAX_FILES:
                raise SubmissionError(f"more than {MAX_FILES} files")
            _check_member(member.name)
            if member.isdir():
                continue
            if _relative(member.name) in seen:
                raise SubmissionError(f"{member.name} is in the archive twice: keep one")
            seen.add(_relative(member.name))
            if not member.isfile():
                raise SubmissionError(f"{member.name} is a link or a special file")
            total += member.size
            if total > MAX_BYTES:
                raise SubmissionError(f"more than {MAX_BYTES >> 20} MB")
            f = tar.extractfile(member)
            out[member.name] = f.read(MAX_STUDENT_FILE + 1)
    return {rel: (lambda d=d: d) for rel, d in out.items()}


def _relative(member):
    """An archive member's path without a leading "./" (but a name like .hidden/x keeps its
    dot)."""
    name = member.replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    return name


def read_submission(path, exercises):
    """({path relative to the repository: bytes} of the student files found, [notes]).
    A student file is found at its repository path, at its path under exercises/, or anywhere
    under its own name (every student file has a name of its own, so a flat upload works)."""
    try:
        if os.path.isdir(path):
            members = _members_of_folder(path)
        elif path.endswith(".zip"):
            members = _members_of_zip(path)
        else:
            members = _members_of_tar(path)
    except SubmissionError:
        raise
    except Exception as e:  # noqa: BLE001 - any broken archive (zip, gz, bz2, xz...) is refused
        raise SubmissionError(f"cannot read {os.path.basename(path)}: {type(e).__name__}: {e}")
    members = {_relative(m): read for m, read in members.items()
               if "__MACOSX" not in m and not os.path.basename(m).startswith("._")}
    found, notes = {}, []
    for e in exercises:
        for rel in e.paths():
            base = os.path.basename(rel)
            # Every member named like this student file, at any depth, in any case or Unicode
            # form: more than one is refused, whichever the grader would have picked.
            named = sorted(m for m in members if _same_name(os.path.basename(m), base))
            if len(named) > 1:
                raise SubmissionError(f"{base} is there {len(named)} times "
                                      f"({', '.join(named[:4])}): keep one")
            hit = named[0] if named else None
            if hit is None:
                continue
            if os.path.basename(hit) != base:
                raise SubmissionError(f"{hit}: the file must be named {base} exactly")
            data = members[hit]()
            if len(data) > MAX_STUDENT_FILE:
                raise SubmissionError(f"{hit} is larger than {MAX_STUDENT_FILE >> 10} KB")
            found[rel] = data
    return found, notes


def _same_name(a, b):
    """File names that would be one file on a case-insensitive or normalizing file system
    (macOS, Windows): what an instructor who unpacks the archive there opens."""
    fold = lambda n: unicodedata.normalize("NFC", n).casefold()  # noqa: E731
    return fold(a) == fold(b)
