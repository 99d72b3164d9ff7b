"""Configuring and building the exercise targets, and the scratch trees that batch grading and
the self-test build in."""

import filecmp
import os
import re
import shutil
import subprocess

from .runner import run_process


class BuildError(RuntimeError):
    pass


def cache_value(build_dir, key):
    path = os.path.join(build_dir, "CMakeCache.txt")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(rf"{re.escape(key)}:[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                return m.group(1)
    return None


def configure(tree, build_dir, flags=(), log=print):
    """cmake -S tree -B build_dir [flags]; raises BuildError with cmake's output on failure."""
    argv = ["cmake", "-S", tree, "-B", build_dir] + list(flags)
    log("$ " + " ".join(argv))
    rc, out, _ = run_process(argv, timeout=900)
    if rc != 0:
        raise BuildError(f"cmake configure failed:\n{out[-6000:]}")


def ensure_configured(tree, build_dir, flags=(), want=None, log=print):
    """Configures build_dir unless it is configured for `tree` with the cache values in `want`
    (a dict of -D settings that must hold, e.g. the hidden-tests folder)."""
    want = want or {}
    source = cache_value(build_dir, "CMAKE_HOME_DIRECTORY")
    if source and os.path.realpath(source) != os.path.realpath(tree):
        raise BuildError(f"{build_dir} is the build folder of {source}, not of {tree}")
    stale = [k for k, v in want.items() if (cache_value(build_dir, k) or "") != v]
    if source is None or stale:
        configure(tree, build_dir, list(flags) + [f"-D{k}={v}" for k, v in want.items()], log)


def _keep_going_flags(build_dir):
    generator = cache_value(build_dir, "CMAKE_GENERATOR") or ""
    if "Ninja" in generator:
        return ["--", "-k", "0"]
    if "Makefiles" in generator:
        return ["--", "-k"]
    return []


def build_all(build_dir, targets, jobs, timeout=3600):
    """One parallel, keep-going build of every target (errors are collected per target after)."""
    if not targets:
        return
    argv = ["cmake", "--build", build_dir, "-j", str(jobs), "--target"] + list(targets)
    run_process(argv + _keep_going_flags(build_dir), timeout=timeout)


def build_target(build_dir, target, jobs, timeout=1800):
    """Builds one target. Returns (ok, output)."""
    argv = ["cmake", "--build", build_dir, "-j", str(jobs), "--target", target]
    rc, out, _ = run_process(argv, timeout=timeout)
    if rc is None:
        return False, f"the build of {target} timed out after {timeout} s\n" + out[-4000:]
    return rc == 0, out


def compiler_message(output, max_lines=40):
    """The part of a failed build's output that a student needs: from the first error on."""
    lines = output.splitlines()
    first = next((i for i, l in enumerate(lines)
                  if re.search(r"\berror\b|\bError\b|undefined reference", l)), None)
    if first is None:
        return "\n".join(lines[-max_lines:])
    start = max(0, first - 3)
    return "\n".join(lines[start:start + max_lines])


# ---------------------------------------------------------------------------------------------
# Scratch trees
# ---------------------------------------------------------------------------------------------

_SKIP_DIRS = {".git", "build", "__pycache__"}


def source_files(root):
    """The files of the work tree that a clean tree needs: what git tracks or would track
    (ignored files, such as build folders and the unsealed instructor folder, excluded)."""
    if os.path.isdir(os.path.join(root, ".git")) and shutil.which("git"):
        proc = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                               "--exclude-standard"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
        if proc.returncode == 0:
            files = [p for p in proc.stdout.decode().split("\0") if p]
            return sorted(p for p in files if os.path.isfile(os.path.join(root, p)))
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("build-")
                       and not (rel == "exercises" and d == "instructor")]
        for name in filenames:
            if rel == "exercises" and name == "instructor.key":
                continue
            files.append(os.path.normpath(os.path.join(rel, name)))
    return sorted(files)


def sync_tree(src_root, dst_root, files, log=None, overlays=None):
    """Makes dst_root hold exactly `files` (relative paths) with the content they have in
    src_root, except the paths of `overlays` ({relative path: bytes}), which get those bytes.
    Unchanged files keep their timestamps, so the next build is incremental (an overlay that
    is already in place is not first overwritten with the work tree's version)."""
    overlays = {os.path.normpath(rel): data for rel, data in (overlays or {}).items()}
    wanted = set(files) | set(overlays)
    changed = 0
    for rel, data in overlays.items():
        changed += write_if_changed(os.path.join(dst_root, rel), data)
    for rel in files:
        if rel in overlays:
            continue
        src = os.path.join(src_root, rel)
        dst = os.path.join(dst_root, rel)
        if not os.path.isfile(src):  # deleted since it was listed
            wanted.discard(rel)
            continue
        if os.path.isfile(dst) and filecmp.cmp(src, dst, shallow=False):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)
        os.utime(dst)  # newer than the objects built from the previous content
        changed += 1
    for dirpath, dirnames, filenames in os.walk(dst_root):
        for name in filenames:
            rel = os.path.normpath(os.path.relpath(os.path.join(dirpath, name), dst_root))
            if rel not in wanted:
                os.remove(os.path.join(dirpath, name))
                changed += 1
    if log and changed:
        log(f"synced {changed} file(s) into {dst_root}")
    return changed


def write_if_changed(path, data):
    """Writes bytes to path unless it already holds them (keeps the timestamp then)."""
    if os.path.isfile(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return True
