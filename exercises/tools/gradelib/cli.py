"""Command line of exercises/tools/grade.py. Run `grade.py --help`."""

import argparse
import os
import shutil
import sys
import tarfile
import tempfile
import zipfile

from . import build as B
from . import reports
from .bundle import (BundleError, Layout, check_lock, check_strip, read_key, seal, unseal)
from .grading import BACKENDS, grade_tree
from .manifest import ManifestError, load_manifest
from .strip import StripError, strip_solution

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
MANIFEST = os.path.join(ROOT, "exercises", "manifest.json")
COMMANDS = ("grade", "batch", "submission", "selftest", "strip", "check-stubs", "seal",
            "unseal", "keygen", "readme")


def log(message):
    print(message, file=sys.stderr, flush=True)


def default_jobs():
    return int(os.environ.get("JOBS", "0") or 0) or os.cpu_count() or 2


# ---------------------------------------------------------------------------------------------
# Trees to grade
# ---------------------------------------------------------------------------------------------

def scratch_flags(root_build, extra, hidden_dir=None, selftest=False):
    """CMake flags of a scratch build: the work tree's CUDA architectures (so both builds
    compile for the same GPUs) and CPU-backend choice, then whatever the user adds."""
    flags = []
    for key in ("CMAKE_CUDA_ARCHITECTURES", "TUTORIAL_CPU_BACKEND"):
        value = B.cache_value(root_build, key) if root_build else None
        if value:
            flags.append(f"-D{key}={value}")
    flags += list(extra or [])
    return flags


def want_settings(hidden_dir=None, selftest=False):
    return {"EXERCISES_HIDDEN_DIR": os.path.abspath(hidden_dir) if hidden_dir else "",
            "EXERCISES_SELFTEST": "ON" if selftest else "OFF"}


class Scratch:
    """A clean copy of the work tree plus its own build folder, reused between runs (only what
    changed is copied, only what changed is rebuilt)."""

    def __init__(self, work_dir, cmake_flags=(), hidden_dir=None, selftest=False,
                 base_overlays=None):
        self.work_dir = os.path.abspath(work_dir)
        # Files every checkout overlays first (the self-test keeps the solutions in place
        # while it grades its fixture in the same tree, so that nothing is rebuilt after).
        self.base_overlays = dict(base_overlays or {})
        self.tree = os.path.join(self.work_dir, "tree")
        self.build = os.path.join(self.work_dir, "build")
        self.flags = scratch_flags(os.path.join(ROOT, "build"), cmake_flags)
        self.want = want_settings(hidden_dir, selftest)
        self.configured = False

    def checkout(self, overlays=None):
        """Makes the tree the work tree plus `overlays` ({path relative to root: bytes})."""
        os.makedirs(self.tree, exist_ok=True)
        # Listed afresh each time: the work tree may change between two submissions.
        B.sync_tree(ROOT, self.tree, B.source_files(ROOT), log=None,
                    overlays={**self.base_overlays, **(overlays or {})})
        if not self.configured:
            B.ensure_configured(self.tree, self.build, self.flags, self.want, log=log)
            self.configured = True


def instructor_scratch(layout, work=None, cmake_flags=()):
    """The scratch tree of `--solutions` and of the self-test: one configuration (hidden tests
    and the self-test fixture built in when present), so that both reuse the same build."""
    hidden = layout.hidden if os.path.isfile(os.path.join(layout.hidden, "manifest.json")) else None
    return Scratch(work or os.path.join(ROOT, "build", "grade-work", "instructor"), cmake_flags,
                   hidden, selftest=True)


def solution_overlays(layout, exercises):
    overlays = {}
    for e in exercises:
        for f in e.files:
            src = layout.solution_of(e, f)
            if not os.path.isfile(src):
                raise BundleError(f"no solution file {src}: unseal the solutions first "
                                  f"(`grade.py unseal`, see exercises/README.md)")
            with open(src, "rb") as fh:
                overlays[os.path.join(e.dir, f)] = fh.read()
    return overlays


def ensure_solutions(layout, key_file=None):
    """Unseals the bundle if the solutions are not unsealed yet and a key is at hand."""
    if layout.has_solutions():
        return
    key = read_key(key_file, layout.key)
    if key is None:
        raise BundleError("the solutions are not unsealed (exercises/instructor/) and no key "
                          "was found: pass --key-file, set EXERCISES_KEY, or put the passphrase "
                          "in exercises/instructor.key")
    unseal(layout, key, log=log)


def hidden_manifest(layout, use_hidden):
    if not use_hidden:
        return None, None
    path = os.path.join(layout.hidden, "manifest.json")
    if not os.path.isfile(path):
        raise BundleError(f"--hidden: no {path} (unseal the instructor bundle first)")
    return path, layout.hidden


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------

def emit(results, args, title):
    text = reports.console(results, title=title, verbose=args.verbose)
    sys.stdout.write(text)
    reports.write_reports(results, json_path=args.json, junit_path=args.junit, text=text,
                          text_path=args.text)


def cmd_grade(args):
    layout = Layout(ROOT)
    hidden_json, hidden_dir = hidden_manifest(layout, args.hidden)
    manifest = load_manifest(args.manifest, hidden_json)
    exercises = manifest.select(args.exercise)
    if args.solutions:
        ensure_solutions(layout, args.key_file)
        scratch = instructor_scratch(layout, args.work, args.cmake_flag)
        scratch.checkout(solution_overlays(layout, exercises))
        tree, build_dir = scratch.tree, scratch.build
        title = f"Grading the instructor solutions (scratch tree {scratch.tree})"
    else:
        tree = os.path.abspath(args.tree or ROOT)
        build_dir = os.path.abspath(args.build_dir or os.environ.get("BUILD_DIR")
                                    or os.path.join(tree, "build"))
        want = {"EXERCISES_HIDDEN_DIR": os.path.abspath(hidden_dir)} if hidden_dir else {}
        if not args.no_build:
            B.ensure_configured(tree, build_dir, args.cmake_flag or [], want, log=log)
        title = f"Grading {tree} (build folder {build_dir})"
    results = grade_tree(build_dir, exercises, jobs=args.jobs, build=not args.no_build, log=log,
                         progress=not args.quiet, backend=args.backend)
    emit(results, args, title)
    failed = any(r.outcome.status == "failed" for er in results for r in er.results)
    return 1 if args.strict and failed else 0


def _safe_extract(archive, dest):
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                parts = name.replace("\\", "/").split("/")
                if name.startswith("/") or ".." in parts:
                    raise BundleError(f"{archive}: refusing member {name!r}")
            z.extractall(dest)
        return
    with tarfile.open(archive) as tar:
        members = []
        for m in tar.getmembers():
            parts = m.name.split("/")
            if m.name.startswith("/") or ".." in parts:
                raise BundleError(f"{archive}: refusing member {m.name!r}")
            if m.isfile() or m.isdir():
                members.append(m)  # links and devices are dropped
        if hasattr(tarfile, "data_filter"):  # Python 3.12+ (and security releases before)
            tar.extractall(dest, members=members, filter="data")
        else:
            tar.extractall(dest, members=members)


def find_submitted(folder, rel, exercise_dir):
    """The student's version of `rel` (a path relative to the repository root) in a submission
    folder: at the same path, at the path inside exercises/, or anywhere under the same name
    (every student file has a name of its own, so a flat upload works too)."""
    candidates = [os.path.join(folder, rel)]
    if rel.startswith("exercises" + os.sep):
        candidates.append(os.path.join(folder, rel[len("exercises") + 1:]))
    for c in candidates:
        if os.path.isfile(c):
            return c
    base = os.path.basename(rel)
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__MACOSX"]
        if base in filenames:
            found.append(os.path.join(dirpath, base))
    if not found:
        return None
    tail = os.path.join(os.path.basename(exercise_dir), base)
    found.sort(key=lambda p: (not p.endswith(tail), p.count(os.sep), p))
    return found[0]


def submission_overlays(folder, exercises):
    overlays, missing = {}, {}
    for e in exercises:
        for rel in e.paths():
            path = find_submitted(folder, rel, e.dir)
            if path is None:
                missing.setdefault(e.name, []).append(os.path.basename(rel))
            else:
                with open(path, "rb") as f:
                    overlays[rel] = f.read()
    return overlays, missing


def grade_submission(scratch, folder, exercises, args):
    overlays, missing = submission_overlays(folder, exercises)
    scratch.checkout(overlays)
    results = grade_tree(scratch.build, exercises, jobs=args.jobs, log=log,
                         progress=not args.quiet, backend=getattr(args, "backend", "auto"))
    for er in results:
        if er.exercise.name in missing:
            er.note = "not submitted: " + ", ".join(missing[er.exercise.name]) + " (stub graded)"
    return results, missing


def cmd_submission(args):
    layout = Layout(ROOT)
    hidden_json, hidden_dir = hidden_manifest(layout, args.hidden)
    manifest = load_manifest(args.manifest, hidden_json)
    exercises = manifest.select(args.exercise)
    scratch = Scratch(args.work or os.path.join(ROOT, "build", "grade-work", "submission"),
                      args.cmake_flag, hidden_dir)
    results, _ = grade_submission(scratch, os.path.abspath(args.folder), exercises, args)
    emit(results, args, f"Grading the submission in {args.folder}")
    return 0


def cmd_batch(args, selftest=False, hidden_build_dir=None, base_overlays=None):
    layout = Layout(ROOT)
    hidden_json, hidden_dir = hidden_manifest(layout, args.hidden)
    hidden_dir = hidden_dir or hidden_build_dir  # built in, graded only with --hidden
    manifest = load_manifest(args.manifest, hidden_json)
    exercises = manifest.select(args.exercise)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    scratch = Scratch(args.work or os.path.join(ROOT, "build", "grade-work", "batch"),
                      args.cmake_flag, hidden_dir, selftest=selftest,
                      base_overlays=base_overlays)
    entries = sorted(os.listdir(args.submissions))
    rows = []
    for entry in entries:
        path = os.path.join(args.submissions, entry)
        student = entry
        for ext in (".tar.gz", ".tgz", ".tar", ".zip"):
            if student.endswith(ext):
                student = student[:-len(ext)]
        if entry.startswith("."):
            continue
        log(f"== {student}")
        tmp = None
        try:
            if os.path.isdir(path):
                folder = path
            else:
                tmp = tempfile.mkdtemp(prefix="submission-")
                _safe_extract(path, tmp)
                folder = tmp
            results, missing = grade_submission(scratch, folder, exercises, args)
            note = "; ".join(f"{k}: not submitted" for k in sorted(missing))
            text = reports.console(results, title=f"Grading {student}", verbose=True)
            reports.write_reports(results, os.path.join(out, student, "results.json"),
                                  os.path.join(out, student, "results.xml"), text,
                                  os.path.join(out, student, "report.txt"))
            score, max_score, _, _ = reports.totals(results)
            log(f"   {student}: {reports.fmt(score)}/{reports.fmt(max_score)}")
            rows.append((student, results, note))
        except (BundleError, OSError, tarfile.TarError, zipfile.BadZipFile) as e:
            log(f"   {student}: cannot grade: {e}")
            rows.append((student, None, f"cannot grade: {e}"))
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
    roster_path = os.path.join(out, "roster.csv")
    reports.roster(rows, [e.name for e in exercises], roster_path)
    print(f"graded {len(rows)} submission(s): {roster_path}")
    return 0


def cmd_strip(args):
    with open(args.file, encoding="utf-8") as f:
        stub = strip_solution(f.read(), args.file)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(stub)
    else:
        sys.stdout.write(stub)
    return 0


def cmd_check_stubs(args):
    layout = Layout(ROOT)
    manifest = load_manifest(args.manifest)
    problems = check_lock(layout, manifest)
    print("key-less check (stubs and bundle against the lock): " +
          ("ok" if not problems else f"{len(problems)} problem(s)"))
    if layout.has_solutions():
        strip_problems = check_strip(layout, manifest)
        print("full check (strip(solutions) == committed stubs): " +
              ("ok" if not strip_problems else f"{len(strip_problems)} problem(s)"))
        problems += strip_problems
    else:
        print("full check skipped: the solutions are not unsealed here")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


def cmd_seal(args):
    layout = Layout(ROOT)
    key = read_key(args.key_file, layout.key)
    if key is None:
        raise BundleError("no key: run `grade.py keygen` once, or pass --key-file")
    if not layout.has_solutions():
        raise BundleError(f"nothing to seal: {layout.solutions} does not exist")
    seal(layout, load_manifest(args.manifest), key, log=log)
    return 0


def cmd_unseal(args):
    layout = Layout(ROOT)
    key = read_key(args.key_file, layout.key)
    if key is None:
        raise BundleError("no key: pass --key-file, set EXERCISES_KEY, or put the passphrase in "
                          "exercises/instructor.key")
    unseal(layout, key, force=args.force, log=log)
    return 0


def cmd_keygen(args):
    import secrets
    layout = Layout(ROOT)
    path = args.key_file or layout.key
    if os.path.exists(path):
        raise BundleError(f"{path} exists; refusing to overwrite a key")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(32) + "\n")
    print(f"wrote a new passphrase to {path} (mode 600). Keep a copy where instructors and CI "
          f"can get it (e.g. a CI secret EXERCISES_KEY); never commit it.")
    return 0


def cmd_readme(args):
    """Refreshes (or with --check, verifies) the points tables of the exercises' READMEs."""
    manifest = load_manifest(args.manifest)
    stale = []
    pages = [(os.path.join(ROOT, "exercises", "README.md"),
              lambda text: reports.replace_between(text, reports.BEGIN_OVERVIEW,
                                                   reports.END_OVERVIEW,
                                                   reports.overview_table(manifest)))]
    for e in manifest.exercises:
        pages.append((os.path.join(ROOT, e.dir, "README.md"),
                      lambda text, e=e: reports.readme_with_points(text, e)))
    for path, refresh in pages:
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = refresh(text)
        if new is None or new == text:
            continue
        stale.append(os.path.relpath(path, ROOT))
        if not args.check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    for p in stale:
        print(("stale: " if args.check else "updated: ") + p)
    return 1 if args.check and stale else 0


def cmd_selftest(args):
    from . import selftest
    return selftest.main(args)


# ---------------------------------------------------------------------------------------------

def parser():
    p = argparse.ArgumentParser(
        prog="grade.py",
        description="Grade the exercises (see exercises/README.md). Without a command: grade.")
    sub = p.add_subparsers(dest="command")

    def common(sp, tree_options=True):
        sp.add_argument("--manifest", default=MANIFEST, help="points per test (default: %(default)s)")
        sp.add_argument("-e", "--exercise", action="append", help="only this exercise (repeatable)")
        sp.add_argument("-j", "--jobs", type=int, default=default_jobs(), help="build jobs")
        sp.add_argument("--hidden", action="store_true",
                        help="add the instructor's hidden tests (exercises/instructor/hidden)")
        sp.add_argument("--cmake-flag", action="append", default=[],
                        help="extra flag for a fresh configure, e.g. -DCMAKE_CUDA_ARCHITECTURES=90")
        sp.add_argument("--work", help="scratch folder for clean trees (default: build/grade-work/...)")
        sp.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
        sp.add_argument("-v", "--verbose", action="store_true", help="print failing tests' output")
        sp.add_argument("--json", help="write Gradescope's results.json here")
        sp.add_argument("--junit", help="write JUnit XML here")
        sp.add_argument("--text", help="write the console table here too")
        sp.add_argument("--key-file", help="the instructors' passphrase file")
        sp.add_argument("--backend", choices=BACKENDS, default="auto",
                        help="where GPU tests run: auto (default: the GPU, or the CPU backend's "
                             "<exercise>_tests_cpu where there is no GPU: correctness only, "
                             "speed pending), gpu, or cpu (needs -DTUTORIAL_CPU_BACKEND=ON on a "
                             "GPU machine)")

    g = sub.add_parser("grade", help="grade a work tree (default) or the solutions")
    common(g)
    g.add_argument("--tree", help="the tree to grade (default: this repository)")
    g.add_argument("--build-dir", help="its build folder (default: <tree>/build or $BUILD_DIR)")
    g.add_argument("--no-build", action="store_true", help="test what is built, build nothing")
    g.add_argument("--strict", action="store_true",
                   help="exit with 1 if a test failed (pending tests do not count)")
    g.add_argument("--solutions", action="store_true",
                   help="grade the instructor solutions in a scratch tree")
    g.set_defaults(func=cmd_grade)

    s = sub.add_parser("submission", help="grade one submission folder on a clean tree "
                                          "(Gradescope: /autograder/submission)")
    common(s)
    s.add_argument("folder")
    s.set_defaults(func=cmd_submission)

    b = sub.add_parser("batch", help="grade every submission (a folder or archive per student)")
    common(b)
    b.add_argument("submissions", help="folder with one subfolder / .zip / .tar.gz per student")
    b.add_argument("--out", default="grades", help="results folder (default: %(default)s)")
    b.set_defaults(func=cmd_batch)

    t = sub.add_parser("selftest", help="the grader's own tests (CI)")
    t.add_argument("--gpu", action="store_true", help="also the GPU checks (needs a GPU and the "
                                                      "solutions): full marks, 0, planted faults")
    t.add_argument("--work", help="scratch folder (default: build/grade-work/instructor)")
    t.add_argument("-j", "--jobs", type=int, default=default_jobs())
    t.add_argument("--key-file")
    t.add_argument("--skip-build-tests", action="store_true",
                   help="only the fast checks (no CMake builds)")
    t.set_defaults(func=cmd_selftest)

    st = sub.add_parser("strip", help="print the stub of a solution source")
    st.add_argument("file")
    st.add_argument("-o", "--output")
    st.set_defaults(func=cmd_strip)

    c = sub.add_parser("check-stubs", help="drift check: committed stubs vs the sealed solutions")
    c.add_argument("--manifest", default=MANIFEST)
    c.set_defaults(func=cmd_check_stubs)

    for name, func, text in (("seal", cmd_seal, "strip the solutions into the stubs, encrypt the "
                              "instructor folder, write the lock"),
                             ("unseal", cmd_unseal, "decrypt the instructor folder")):
        sp = sub.add_parser(name, help=text)
        sp.add_argument("--manifest", default=MANIFEST)
        sp.add_argument("--key-file")
        if name == "unseal":
            sp.add_argument("--force", action="store_true", help="overwrite local changes")
        sp.set_defaults(func=func)

    r = sub.add_parser("readme", help="refresh the points tables of the exercises' READMEs")
    r.add_argument("--manifest", default=MANIFEST)
    r.add_argument("--check", action="store_true", help="only report stale tables (exit 1)")
    r.set_defaults(func=cmd_readme)

    k = sub.add_parser("keygen", help="write a new random passphrase to exercises/instructor.key")
    k.add_argument("--key-file")
    k.set_defaults(func=cmd_keygen)
    return p


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv.insert(0, "grade")
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (ManifestError, StripError, BundleError, B.BuildError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
