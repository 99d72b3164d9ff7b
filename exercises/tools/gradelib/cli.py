"""The command line of exercises/tools/grade.py (`grade.py --help`): argument parsing, and
each command a few lines on top of the session API (session.py)."""

import argparse
import json
import os
import signal
import sys
import tempfile
import time
import traceback

from . import reports
from . import toolchain as T
from .bundle import (BundleError, Layout, check_lock, check_strip, ensure_solutions, key_source,
                     read_key, seal, solution_files, unseal, unseal_hidden)
from .sandbox import MODES, UID_BASE, printable
from .session import BACKENDS, Config, GradingSession
from .spec import SpecError, load_manifest
from .strip import StripError, strip_solution
from .submissions import SubmissionError, safe_name, shown_name
from .leftovers import remove_tree

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
MANIFEST = os.path.join(ROOT, "exercises", "manifest.json")
COMMANDS = ("grade", "batch", "submission", "merge", "gradescope", "selftest", "strip",
            "check-stubs", "seal", "unseal", "keygen", "readme", "new")


def log(message):
    # Names and messages from submissions are escaped where they are made (shown_name); this
    # keeps anything else that slipped through from acting on the terminal.
    print(printable(str(message)), file=sys.stderr, flush=True)


def default_jobs():
    return int(os.environ.get("JOBS", "0") or 0) or os.cpu_count() or 2


def hidden_tests(args, private_dir):
    """--hidden: the hidden tests only, unsealed into a private folder (or given directly)."""
    if getattr(args, "hidden_tests", None):
        return os.path.abspath(args.hidden_tests)
    if not getattr(args, "hidden", False):
        return None
    layout = Layout(ROOT)
    key = read_key(args.key_file, layout.key)
    if key is None:
        raise BundleError("--hidden needs the passphrase: --key-file, EXERCISES_KEY, "
                          "EXERCISES_KEY_FILE or exercises/instructor.key")
    os.makedirs(private_dir, mode=0o700, exist_ok=True)
    return unseal_hidden(layout, key, private_dir)


def config_from(args, sandbox_default, private, untrusted=False, instructor_paths=()):
    """untrusted: submissions (batch, submission): never run without a sandbox unless
    --sandbox none asks for it. instructor_paths: what of the instructor's this command writes
    (the grades) besides what the session knows of."""
    outputs = [os.path.abspath(p) for p in (getattr(args, "json", None),
                                            getattr(args, "junit", None),
                                            getattr(args, "text", None)) if p]
    return Config(root=ROOT, build_dir=os.path.abspath(args.build_dir or os.environ.get("BUILD_DIR")
                                                      or os.path.join(ROOT, "build")),
                  manifest_path=args.manifest, exercises=args.exercise or [], jobs=args.jobs,
                  backend=args.backend, sandbox=args.sandbox or sandbox_default,
                  work_dir=args.work, seed=args.seed, hidden_path=hidden_tests(args, private),
                  budget_s=args.budget, cmake_flags=args.cmake_flag, uid_base=args.uid_base,
                  test_filter=args.test, log=log, progress=not args.quiet,
                  require_sandbox=untrusted,
                  instructor_paths=list(instructor_paths) + outputs + [private],
                  key_path=key_source(args.key_file, Layout(ROOT).key)
                  if getattr(args, "hidden", False) else None,
                  rerun=getattr(args, "rerun", "") or "")


def short_of_full_marks(report):
    """--strict: a test failed, passed with part of its points (a slow kernel's speed test),
    or is pending because of a grader error."""
    return any(r.outcome.status == "failed" or
               (r.outcome.status == "passed" and r.outcome.score < r.max_score) or
               r.outcome.reason.startswith("grader error")
               for er in report.results for r in er.results)


def emit(report, args, title):
    text = reports.console(report, title=title, verbose=args.verbose)
    sys.stdout.write(text)
    reports.write_reports(report, json_path=args.json, junit_path=args.junit, text=text,
                          text_path=args.text)


def protect_instructor_files():
    """As root, the unsealed instructor folder and the key are the grader's alone."""
    if os.geteuid() != 0:
        return
    layout = Layout(ROOT)
    for path, mode in ((layout.instructor, 0o700), (layout.key, 0o600)):
        if os.path.exists(path):
            os.chmod(path, mode)


# ---------------------------------------------------------------------------------------------

def cmd_grade(args):
    private = tempfile.mkdtemp(prefix="grade-private-")
    session = None
    try:
        if args.solutions:
            ensure_solutions(ROOT, args.key_file, log)
            protect_instructor_files()
            session = GradingSession(config_from(args, "auto", private))
            session.prepare()
            files = session.stub_files()
            files.update(solution_files(ROOT, session.exercises))
            report = session.grade_files("solutions", files)
            emit(report, args, "Grading the instructor solutions")
        else:
            session = GradingSession(config_from(args, "none", private))
            session.prepare()
            report = session.grade_worktree()
            emit(report, args, f"Grading the student files of {ROOT}")
        return 1 if args.strict and short_of_full_marks(report) else 0
    finally:
        if session is not None:
            session.close()
        remove_tree(private)


def cmd_submission(args):
    """Gradescope's run_autograder and the GitHub Classroom workflow: always writes the JSON,
    also when grading fails; with --json, after every test too, so that a grader stopped by
    the platform's time limit leaves the tests it ran (the others say why they did not)."""
    start = time.monotonic()
    private = tempfile.mkdtemp(prefix="grade-private-")
    session = None
    try:
        # Gradescope puts the earlier submissions' results (the hidden tests' names and expected
        # values among them) beside the submission folder: the student's code must not read it.
        metadata = os.path.join(os.path.dirname(os.path.abspath(args.folder)),
                                "submission_metadata.json")
        if os.path.isfile(metadata) and os.geteuid() == 0:
            os.chmod(metadata, 0o600)
        config = config_from(args, "auto", private, untrusted=True,
                             instructor_paths=[metadata] if os.path.isfile(metadata) else [])
        if args.json:
            config.on_progress = lambda partial: reports.write_file(
                args.json, json.dumps(reports.gradescope(partial), indent=2) + "\n")
        session = GradingSession(config)
        protect_instructor_files()
        session.prepare()
        report = session.grade_folder("submission", os.path.abspath(args.folder))
        emit(report, args, f"Grading the submission in {args.folder}")
        return 1 if args.strict and short_of_full_marks(report) else 0
    except Exception as e:  # noqa: BLE001 - Gradescope must get a results.json, whatever failed
        message = f"{type(e).__name__}: {e}"
        log(traceback.format_exc())
        if args.json:
            reports.write_file(args.json, json.dumps(
                reports.gradescope_failure(message, time.monotonic() - start), indent=2) + "\n")
        print(f"error: {printable(message)}", file=sys.stderr)
        return 2
    finally:
        if session is not None:
            session.close()
        remove_tree(private)


def cmd_batch(args):
    out = os.path.abspath(args.out)
    private = tempfile.mkdtemp(prefix="grade-private-")
    os.makedirs(out, exist_ok=True)
    session = None
    try:
        session = GradingSession(config_from(args, "auto", private, untrusted=True,
                                             instructor_paths=[out]))
        protect_instructor_files()
        if os.geteuid() == 0:
            os.chmod(out, 0o700)  # no student uid reads anyone's grades (the probe checks)
        session.prepare()
        roster = reports.Roster(os.path.join(out, "roster.csv"),
                                [e.name for e in session.exercises])
        used = {"roster.csv"}  # a student called roster.csv gets roster.csv_/

        def on_report(student, report, note):
            if report is not None:
                folder = safe_name(student)
                while folder in used:
                    folder += "_"
                used.add(folder)
                text = reports.console(report, title=f"Grading {shown_name(student)}",
                                       verbose=True)
                base = os.path.join(out, folder)
                reports.write_reports(report, os.path.join(base, "results.json"),
                                      os.path.join(base, "results.xml"), text,
                                      os.path.join(base, "report.txt"))
            roster.add(student, report, note)
        session.grade_batch(os.path.abspath(args.submissions), out, on_report)
        print(f"graded the submissions of {args.submissions}: {roster.path}")
        return 0
    finally:
        if session is not None:
            session.close()
        remove_tree(private)


def cmd_merge(args):
    from .merge import merge_paths
    merge_paths(args.base, args.gpu, args.out, log)
    return 0


def cmd_gradescope(args):
    from .gradescope import default_budget, make_autograder
    output = os.path.abspath(args.output)
    if not os.path.isdir(os.path.dirname(output)):
        raise RuntimeError(f"-o {args.output}: the folder {os.path.dirname(output)} does not "
                           f"exist")
    load_manifest(MANIFEST, ROOT).select(args.exercise or [])  # unknown names: one line
    budget = args.budget if args.budget else default_budget(args.gradescope_timeout)
    if budget >= args.gradescope_timeout * 60:
        raise RuntimeError(f"--budget {budget:g} s does not fit in Gradescope's "
                           f"{args.gradescope_timeout:g}-minute timeout: give the timeout "
                           f"with --gradescope-timeout (the assignment's setting)")
    private = tempfile.mkdtemp(prefix="grade-private-")
    try:
        hidden = hidden_tests(args, private)
        path = make_autograder(ROOT, output, args.exercise or [], hidden,
                               args.cuda_architectures, log, budget=budget)
        print(f"wrote {path}")
        return 0
    finally:
        remove_tree(private)


def cmd_selftest(args):
    from . import selftest
    return selftest.main(args)


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
    manifest = load_manifest(args.manifest, ROOT)
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
    seal(layout, load_manifest(args.manifest, ROOT), key, log=log)
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


def cmd_new(args):
    from .scaffold import ScaffoldError, create
    try:
        create(ROOT, args.name, args.kind, args.chapter, args.file, args.summary, log=log)
    except ScaffoldError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def cmd_readme(args):
    """Refreshes (or with --check, verifies) the points tables of the exercises' READMEs."""
    manifest = load_manifest(args.manifest, ROOT)
    stale = []
    pages = [(os.path.join(ROOT, "exercises", "README.md"),
              lambda text: reports.replace_between(text, reports.BEGIN_OVERVIEW,
                                                   reports.END_OVERVIEW,
                                                   reports.overview_table(manifest)))]
    for e in manifest.exercises:
        pages.append((os.path.join(ROOT, e.dir, "README.md"),
                      lambda text, e=e: reports.replace_between(
                          text, reports.BEGIN_POINTS, reports.END_POINTS,
                          reports.points_table(e))))
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


# ---------------------------------------------------------------------------------------------

def parser():
    p = argparse.ArgumentParser(
        prog="grade.py",
        description="Grade the exercises (exercises/INSTRUCTORS.md). Without a command: grade.")
    sub = p.add_subparsers(dest="command")

    def common(sp):
        sp.add_argument("--manifest", default=MANIFEST, help="the exercises (default: %(default)s)")
        sp.add_argument("-e", "--exercise", action="append", help="only this exercise (repeatable)")
        sp.add_argument("-t", "--test", help="only the tests whose name contains this text")
        sp.add_argument("-j", "--jobs", type=int, default=default_jobs(), help="build jobs")
        sp.add_argument("--build-dir", help="the repository's build folder (default: build/ or "
                                            "$BUILD_DIR)")
        sp.add_argument("--hidden", action="store_true",
                        help="add the instructor's hidden tests (unsealed alone, privately)")
        sp.add_argument("--hidden-tests", help="a hidden tests file to add (instead of --hidden)")
        sp.add_argument("--seed", type=int, help="the run seed (default: a new one each run; "
                                                 "every report prints it)")
        sp.add_argument("--backend", choices=BACKENDS, default="auto",
                        help="where kernel tests run: auto (the GPU, or the CPU backend where "
                             "there is none), gpu, or cpu")
        sp.add_argument("--sandbox", choices=MODES,
                        help="bwrap, user (root: a uid per student), none, or auto (the "
                             "strongest available; default for submissions)")
        sp.add_argument("--uid-base", type=int, default=UID_BASE,
                        help="first uid of the per-student uids (root only)")
        sp.add_argument("--budget", type=float, default=3600,
                        help="seconds per submission, builds and tests together (wall time: "
                             "sleeping counts); past it the remaining tests fail "
                             "(default %(default)g)")
        sp.add_argument("--cmake-flag", action="append", default=[],
                        help="extra flag for configuring the repository's build")
        sp.add_argument("--work", help="scratch folder (default: build/grade-work, or a new "
                                       "folder under /tmp when sandboxing as root)")
        sp.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
        sp.add_argument("-v", "--verbose", action="store_true", help="failing tests' details")
        sp.add_argument("--json", help="write Gradescope's results.json here")
        sp.add_argument("--junit", help="write JUnit XML here")
        sp.add_argument("--text", help="write the console table here too")
        sp.add_argument("--key-file", help="the instructors' passphrase file (a pipe works: "
                                           "--key-file <(pass show ...), or - for stdin)")
        sp.add_argument("--rerun", help=argparse.SUPPRESS)  # the exercise Makefiles' words

    g = sub.add_parser("grade", help="grade the student files of this work tree (default)")
    common(g)
    g.add_argument("--strict", action="store_true", help="exit 1 unless every test got all its "
                   "points (speed included)")
    g.add_argument("--solutions", action="store_true",
                   help="grade the instructor solutions, as a submission")
    g.set_defaults(func=cmd_grade)

    s = sub.add_parser("submission", help="grade one submission (Gradescope: "
                                          "/autograder/submission)")
    common(s)
    s.add_argument("--strict", action="store_true", help="exit 1 unless every test got all its "
                   "points (the GitHub Classroom workflow)")
    s.add_argument("folder")
    s.set_defaults(func=cmd_submission)

    b = sub.add_parser("batch", help="grade every submission of a folder (a subfolder, .zip "
                                     "or .tar.gz per student)")
    common(b)
    b.add_argument("submissions")
    b.add_argument("--out", default="grades", help="results folder (default: %(default)s)")
    b.set_defaults(func=cmd_batch)

    m = sub.add_parser("merge", help="add a GPU run's speed points to results graded "
                                     "without a GPU (files or folders of results.json)")
    m.add_argument("base", help="results.json (or a batch's --out folder) graded without a GPU")
    m.add_argument("gpu", help="the same submissions graded on a GPU machine")
    m.add_argument("--out", required=True, help="where the merged results go")
    m.set_defaults(func=cmd_merge)

    z = sub.add_parser("gradescope", help="write autograder.zip for Gradescope")
    z.add_argument("-o", "--output", default="autograder.zip")
    z.add_argument("-e", "--exercise", action="append", help="only this exercise (repeatable)")
    z.add_argument("--hidden", action="store_true", help="include the hidden tests")
    z.add_argument("--hidden-tests")
    z.add_argument("--key-file")
    z.add_argument("--cuda-architectures", default="80-real;90",
                   help="what setup.sh compiles for (default: %(default)s)")
    z.add_argument("--gradescope-timeout", type=float, default=10,
                   help="the assignment's autograder timeout on Gradescope, in minutes "
                        "(Gradescope's default: %(default)g, at most 40)")
    z.add_argument("--budget", type=float,
                   help="seconds per submission (default: the timeout less a fifth, at least "
                        "2 minutes less)")
    z.set_defaults(func=cmd_gradescope)

    t = sub.add_parser("selftest", help="the grader's own tests (CI)")
    t.add_argument("--gpu", action="store_true", help="also the GPU checks (a GPU and the "
                                                      "solutions): full marks with speed")
    t.add_argument("--unit-only", action="store_true", help="only the unit tests (seconds)")
    t.add_argument("--no-corpus", action="store_true", help="skip the hostile corpus and the "
                                                            "Gradescope zip")
    t.add_argument("--no-unit-tests", action="store_true",
                   help="skip the unit tests (CI: `make check` ran them, as ctest's "
                        "\"exercises/host: grader unit tests\")")
    t.add_argument("--parts", help="only these end-to-end parts, comma-separated: stubs, "
                                   "fixture, solutions, faults, model, corpus, shared, tables, "
                                   "classroom, gradescope, copies")
    t.add_argument("--sandbox", choices=MODES, help="the end-to-end parts' sandbox (default: "
                                                    "auto, the strongest here)")
    t.add_argument("--uid-base", type=int, default=UID_BASE,
                   help="first uid of the per-student uids (root only)")
    t.add_argument("--work", help="scratch folder")
    t.add_argument("-j", "--jobs", type=int, default=default_jobs())
    t.add_argument("--key-file")
    t.add_argument("--build-dir")
    t.add_argument("--lanes", type=int, default=2,
                   help="end-to-end parts run side by side, each in a process of its own, at "
                        "most this many at once (default 2; 1: one after another). "
                        "Much of their time is spent waiting (the idle, the sleepers, the "
                        "budgets), not computing; parts whose students share the machine's "
                        "/tmp never run at once")
    t.add_argument("--job", help=argparse.SUPPRESS)          # one part, run by --lanes
    t.add_argument("--job-results", help=argparse.SUPPRESS)  # where that part's checks go
    t.add_argument("--job-solutions", action="store_true", help=argparse.SUPPRESS)
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

    n = sub.add_parser("new", help="the skeleton of a new exercise (scaffold.py)")
    n.add_argument("name", help="e.g. 04c_wavefronts: chapter number, a letter, words")
    n.add_argument("--kind", required=True, choices=("host", "gpu"))
    n.add_argument("--chapter", required=True, help="its chapter's folder, e.g. 04_register_block")
    n.add_argument("--file", help="the file a student edits (default: from the name)")
    n.add_argument("--summary", help="one line for the tables: what a student writes")
    n.set_defaults(func=cmd_new)
    return p


def _terminated(signum, frame):
    raise SystemExit(128 + signum)  # a platform's time limit: the finally blocks still run


def main(argv=None):
    signal.signal(signal.SIGTERM, _terminated)
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv.insert(0, "grade")
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (SpecError, StripError, BundleError, T.BuildError, SubmissionError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
