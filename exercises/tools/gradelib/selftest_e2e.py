"""The end-to-end part of `grade.py selftest` (see selftest.py): real builds, real runners,
the real sandbox."""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

from . import leftovers as L
from . import sandbox as S
from .bundle import Layout, solution_files
from .gradescope import extract, make_autograder
from .reports import Roster, console
from .reports import gradescope as reports_gradescope
from .sandbox import NO_NAMESPACES
from .session import Config, GradingSession, machine_has_gpu, runner_targets
from .spec import drop_drawn_calls, load_manifest
from .submissions import shown_name
from .toolchain import TrustedBuild, sha256_file

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
SELFTEST = os.path.join(TOOLS, "selftest")
sys.path.insert(0, SELFTEST)
import hostile  # noqa: E402


def log(message):
    print(message, file=sys.stderr, flush=True)


# The self-test's time budgets per submission (the production defaults stay: 3600 s, and
# Gradescope's from its timeout). 03a's attackers build three runners each and none of them
# waits: its budget only keeps a broken run from holding the self-test. 01b's attackers are
# where the time attacks are: `spinner` must be stopped by the budget, while a right answer
# must fit in it: about 10 s alone on a loaded 2-core machine, but up to 74 s with the parts
# side by side (--lanes 3, beside other builds), where 60 s cost two right answers 2 points.
KERNEL_BUDGET = 600.0
HOST_BUDGET = 90.0
# 01b's second batch (hostile.HOST_SECOND_BATCH) holds no right answer: its attackers get a
# shorter budget, which stops the spinner and the hogs sooner (the CPU they burn until then is
# CPU the other parts wait for); its control students, graded after them, get HOST_BUDGET.
HOST_SECOND_BUDGET = 45.0
# The Gradescope package and the Classroom recipe grade 03a and 01b's solutions (a minute or
# two on a slow machine): the sleepers must end long before this, by the idle watch.
PACKAGE_BUDGET = 600.0
_SESSIONS = []


def session_for(args, manifest, exercises=(), sandbox="auto", hidden=None, budget=3600.0):
    config = Config(root=ROOT, build_dir=os.path.abspath(args.build_dir or
                                                         os.path.join(ROOT, "build")),
                    manifest_path=manifest, exercises=list(exercises), jobs=args.jobs,
                    sandbox=sandbox if sandbox != "auto" else getattr(args, "sandbox", None) or
                    sandbox, hidden_path=hidden,
                    log=log, progress=False, budget_s=budget,
                    uid_base=getattr(args, "uid_base", None) or S.UID_BASE)
    s = GradingSession(config)
    s.prepare()
    _SESSIONS.append(s)
    return s


def close_sessions(checks=None):
    """Every session's work folder is gone once it is closed (checked, where `checks` is
    given; the work folders left, returned)."""
    works = [s.work for s in _SESSIONS]
    while _SESSIONS:
        _SESSIONS.pop().close()
    left = [w for w in works if os.path.exists(w) and os.path.basename(w).startswith(
        "exercise-grading-")]
    if checks is not None:
        check_closed(checks, left)
    return left


def check_closed(checks, left):
    checks.check(not left, "every grading session's work folder is removed when it closes",
                 ", ".join(left[:3]))


def scores(report):
    return {(er.exercise.name, r.test.name): r.outcome for er in report.results
            for r in er.results}


def patched(text, fault):
    if text.count(fault["replace"]) != 1:
        raise ValueError(f"planted fault {fault['name']!r}: its text occurs "
                         f"{text.count(fault['replace'])} times in {fault['file']}, not once")
    return text.replace(fault["replace"], fault["with"])


def check_fault(checks, label, fault, exercise, got, base):
    """The fault costs its must_fail tests (to 0) and nothing else."""
    must, may = fault.get("must_fail", []), fault.get("may_fail", [])
    problems, waived = [], []
    for test in exercise.tests:
        o, ref = got[(exercise.name, test.name)], base[(exercise.name, test.name)]
        if ref.status == "pending":
            if o.status != "pending":
                problems.append(f"{test.name}: {o.status}, expected pending")
            elif must != "*" and test.name in must:
                waived.append(test.name)
        elif must == "*" or test.name in must:
            if o.score != 0:
                problems.append(f"{test.name}: scored {o.score}, expected 0")
            elif fault.get("reason_contains", "") not in o.reason:
                problems.append(f"{test.name}: {o.reason!r} lacks {fault['reason_contains']!r}")
        elif test.name in may:
            continue
        elif test.performance:
            if o.score <= 0:
                problems.append(f"{test.name}: the speed test lost its points ({o.reason})")
        elif o.score != ref.score:
            problems.append(f"{test.name}: {o.score} ({o.reason}), the solution got {ref.score}")
    said = f"{label}: planted {fault['name']!r} costs exactly its own points"
    if waived and len(waived) == len(must):
        said += " (waived: every test that must catch it is pending here)"
    checks.check(not problems, said, "; ".join(problems[:5]))


# ---------------------------------------------------------------------------------------------

def stubs(checks, args):
    print("3a. the committed stubs score 0", flush=True)
    s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"), sandbox="none")
    report = s.grade_worktree()
    # Pending: speed without a GPU, and on a GPU build without the CPU backend the tests that
    # run only there (the memory model, "backend": "cpu").
    bad = [(k, o.status, o.reason) for k, o in scores(report).items()
           if not (o.status == "failed" and "not implemented yet" in o.reason)
           and not (o.status == "pending" and k[1] and
                    ("speed" in o.reason or (args.gpu and "CPU backend" in o.reason)))]
    total, maximum, pending, _ = report.totals()
    checks.check(total == 0 and not bad, f"stubs: 0/{maximum:g}, every test 'not implemented "
                 f"yet' ({pending:g} points pending)", str(bad[:3]))
    on_cpu = [er.exercise.name for er in report.results if er.on_cpu]
    if not args.gpu and s.trusted.cpu_twins:
        gpu_exercises = [e.name for e in s.exercises if e.kind == "gpu"]
        checks.check(sorted(on_cpu) == sorted(gpu_exercises),
                     "stubs: without a GPU, the kernel tests ran on the CPU backend",
                     f"{on_cpu} vs {gpu_exercises}")


def fixture(checks, args):
    print("3b. the self-test fixture in batch mode", flush=True)
    manifest = os.path.join(SELFTEST, "manifest.json")
    s = session_for(args, manifest)
    exercise = s.exercises[0]
    with open(os.path.join(SELFTEST, "fixture_solution", "fixture.hpp")) as f:
        solution = f.read()
    with open(os.path.join(SELFTEST, "planted.json")) as f:
        faults = json.load(f)["faults"]
    subs = tempfile.mkdtemp(prefix="fixture-submissions-")
    out = tempfile.mkdtemp(prefix="fixture-grades-")

    def put(student, text, tree=False):
        folder = os.path.join(subs, student, exercise.dir) if tree else os.path.join(subs, student)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "fixture.hpp"), "w") as f:
            f.write(text)
    put("00_solution", solution, tree=True)
    os.makedirs(os.path.join(subs, "01_stub_nothing_submitted"))
    for i, fault in enumerate(faults):
        put(f"{i + 2:02d}_{fault['name'].replace(' ', '_')}", patched(solution, fault))
    with tarfile.open(os.path.join(subs, "10_solution_tar.tar.gz"), "w:gz") as tar:
        tar.add(os.path.join(subs, "00_solution", exercise.dir, "fixture.hpp"),
                arcname="work/fixture.hpp")
    with zipfile.ZipFile(os.path.join(subs, "11_solution_zip.zip"), "w") as z:
        z.writestr("fixture.hpp", solution)
    reports, notes = {}, {}
    roster = Roster(os.path.join(out, "roster.csv"), [exercise.name])

    def on_report(student, report, note):
        reports[student], notes[student] = report, note
        roster.add(student, report, note)
    start = time.monotonic()
    s.grade_batch(subs, out, on_report)
    log(f"fixture batch: {time.monotonic() - start:.0f} s")
    checks.check(len(reports) == len(faults) + 4, f"fixture: {len(reports)} students graded")
    base = scores(reports["00_solution"])
    host_max = sum(t.points for t in exercise.tests if not t.gpu or s.gpu)
    for student in ("00_solution", "10_solution_tar", "11_solution_zip"):
        total = reports[student].totals()[0] if reports.get(student) else None
        why = notes.get(student, "") or ""
        if reports.get(student):  # what went wrong, for the log: build errors, first failure
            for er in reports[student].results:
                why += " ".join(f"{t}: {m[-600:]}" for t, m in er.build_errors.items())
                why += next((f" {r.test.name}: {r.outcome.reason}" for r in er.results
                             if r.outcome.status == "failed"), "")
        checks.check(total == host_max, f"fixture: {student} scores full marks ({total}/{host_max})",
                     why)
    gpu_test = base[(exercise.name, "fixture on the GPU")]
    checks.check(gpu_test.status == ("passed" if s.gpu else "pending"),
                 f"fixture: the GPU test is {'run' if s.gpu else 'pending'} here")
    stub = reports["01_stub_nothing_submitted"]
    checks.check(stub.totals()[0] == 0 and all(
        "not implemented yet" in o.reason for o in scores(stub).values() if o.status != "pending"),
        "fixture: the stub scores 0, every test saying 'not implemented yet'")
    checks.check("not submitted" in (stub.results[0].note or ""),
                 "fixture: a missing file is noted ('not submitted')")
    for i, fault in enumerate(faults):
        student = f"{i + 2:02d}_{fault['name'].replace(' ', '_')}"
        check_fault(checks, "fixture", fault, exercise, scores(reports[student]), base)
    got = scores(reports[f"{[f['name'] for f in faults].index('infinite loop') + 2:02d}_infinite_loop"])
    checks.check("timed out" in got[(exercise.name, "fixture sum_to")].reason,
                 "fixture: the infinite loop is reported as a timeout")
    got = scores(reports[f"{[f['name'] for f in faults].index('segfault') + 2:02d}_segfault"])
    checks.check("SIGSEGV" in got[(exercise.name, "fixture max_of")].reason,
                 "fixture: the segfault is reported as SIGSEGV")
    with open(os.path.join(out, "roster.csv")) as f:
        rows = list(csv.reader(f))
    checks.check(len(rows) == len(faults) + 5, "fixture: roster.csv has a row per student")
    shutil.rmtree(subs, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)


def solutions(checks, args, faults=True):
    print("3c. the instructor solutions" + (" on the GPU" if args.gpu else ""), flush=True)
    layout = Layout(ROOT)
    hidden = os.path.join(layout.hidden, "tests.json")
    s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"),
                    hidden=hidden if os.path.isfile(hidden) else None)
    files = s.stub_files()
    files.update(solution_files(ROOT, s.exercises))
    start = time.monotonic()
    report = s.grade_files("solutions", files)
    log(console(report, verbose=True))
    log(f"solutions: {time.monotonic() - start:.0f} s")
    base = scores(report)
    bad = [(k, o.reason) for k, o in base.items() if o.status == "failed" or
           (o.status == "passed" and o.score < next(t.points for e in s.exercises
                                                    for t in e.tests if (e.name, t.name) == k))]
    pending = [k for k, o in base.items() if o.status == "pending"]
    total, maximum, _, _ = report.totals()
    checks.check(not bad, f"solutions: full marks, {total:g}/{maximum:g} "
                 f"({len(pending)} test(s) pending)", str(bad[:4]))
    checks.check(any(t.hidden for e in s.exercises for t in e.tests) or not s.config.hidden_path,
                 "solutions: the hidden tests were graded too")
    if args.gpu:
        # The tests that run on the CPU backend wherever the grader runs (the memory model,
        # "backend": "cpu") stay pending on a GPU machine whose build has no CPU backend: said,
        # not failed; every other test must have run.
        on_cpu_only = {(e.name, t.name) for e in s.exercises for t in e.tests
                       if (t.model is not None and not s.trusted.model_twins) or
                       (t.cpu_backend and not s.trusted.cpu_twins)}
        left = [k for k in pending if k not in on_cpu_only]
        waived = len(pending) - len(left)
        checks.check(not left, "solutions on the GPU: nothing pending (speed included)" +
                     (f"; {waived} CPU-backend test(s) pending: this build has no CPU backend "
                      f"(clang++ 14 or newer, -DTUTORIAL_CPU_BACKEND=ON)" if waived else ""),
                     str(left[:3]))
    if not faults:
        return
    with open(layout.planted) as f:
        faults = json.load(f)["faults"]
    on_cpu = s.mode == "cpu"
    for exercise in s.exercises:
        for t in exercise.tests:
            if not t.performance:
                t.timeout_s = min(t.timeout_s, 20.0)
    if on_cpu:
        s.manifest.defaults.setdefault("timeout_s", {})["cpu"] = 20
    for fault in faults:
        if on_cpu and fault.get("cpu_backend") is False:
            continue
        exercise = s.manifest.exercise(fault["exercise"])
        rel = os.path.join(exercise.dir, fault["file"])
        faulty = dict(files)
        faulty[rel] = patched(files[rel].decode(), fault).encode()
        s.exercises = [exercise]
        got = scores(s.grade_files(f"fault {fault['name']}", faulty))
        check_fault(checks, "solutions" + (" on the CPU backend" if on_cpu else " on the GPU"),
                    fault, exercise, got, base)
    s.exercises = s.manifest.select([])


def targets_state(session):
    """Hashes of what the write_outside attack tries to overwrite: the exercises' manifests and
    tests.json, the repository build's programs and the kit."""
    paths = []
    for dirpath, _, names in os.walk(os.path.join(ROOT, "exercises")):
        if "instructor" not in dirpath:
            paths += [os.path.join(dirpath, n) for n in names if n in ("manifest.json", "tests.json")]
    for folder in (os.path.join(session.trusted.build_dir, "bin"), session.trusted.kit):
        for dirpath, _, names in os.walk(folder):
            paths += [os.path.join(dirpath, n) for n in names]
    return {p: sha256_file(p) for p in paths if os.path.isfile(p)}


def corpus(checks, args, have_solutions, only=None, attacks=None, label=""):
    """The hostile corpus's batches (`only`: those of that exercise; `attacks`: only these
    attacks; the self-test's parts side by side run each batch as a part of its own)."""
    print("3d. the hostile corpus" + (f" ({only}{', ' + label if label else ''})" if only else ""),
          flush=True)
    # 03a's batch in the `user` sandbox (with namespaces, as root), 01b's in the strongest
    # here (bubblewrap): with the kernel attacks (bubblewrap), the shared-machine batches
    # (`user` without and with namespaces) and the Gradescope package (`user`, none), every
    # family of attacks meets every sandbox.
    user = os.geteuid() == 0 and not args.gpu and not getattr(args, "sandbox", None)
    for target, budget, sandbox in ((hostile.KERNEL, KERNEL_BUDGET, "user" if user else "auto"),
                                    (hostile.HOST, HOST_BUDGET, "auto")):
        if args.gpu and target is hostile.HOST:
            continue  # on a GPU only the attacks on 03a's speed test are new
        if only and target.exercise != only:
            continue
        if target is hostile.HOST:
            batches = [names for _, names in hostile.host_batches()]
            if attacks is not None and tuple(attacks) not in batches:
                raise ValueError(f"not a batch of hostile.host_batches(): {attacks}")
            for names in batches:
                if attacks is None or tuple(attacks) == names:
                    second = names == hostile.HOST_SECOND_BATCH
                    corpus_batch(checks, args, target, HOST_SECOND_BUDGET if second else budget,
                                 sandbox, names, control_budget=budget if second else None)
        else:
            corpus_batch(checks, args, target, budget, sandbox, attacks)


def secrets():
    """What no report may hold: the passphrase, a solution's marker, a hidden test's."""
    texts = []
    key = Layout(ROOT).key
    for path in (os.environ.get("EXERCISES_KEY_FILE"), key):
        if path and os.path.isfile(path):
            with open(path) as f:
                texts.append(f.read().strip())
    if os.path.isdir(Layout(ROOT).solutions):
        texts.append("BEGIN SOLUTION")
    texts.append("hidden:")
    return [t for t in texts if t]


def leaked(report_texts):
    return [t[:12] for t in secrets() if any(t in text for text in report_texts)]


def corpus_batch(checks, args, target, budget, sandbox="auto", attacks=None,
                 control_budget=None):
    """One exercise's attackers (`attacks`: only these names) graded as a batch, then two
    control students (the stub and the solution) who must get what they would alone (with
    `control_budget` instead of `budget`, where given)."""
    s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"),
                    exercises=[target.exercise], budget=budget, sandbox=sandbox)
    src = hostile.sources(ROOT, target)
    subs = tempfile.mkdtemp(prefix="hostile-")
    os.chmod(subs, 0o755)
    out = tempfile.mkdtemp(prefix="hostile-grades-")
    written, skipped = hostile.write_corpus(subs, target, ROOT, sandboxed=s.sandbox.isolated,
                                            only=attacks, gpu=bool(args.gpu))
    for attack, why in skipped:
        print(f"  skip  {attack.name}: {why}", flush=True)
    controls = {"zz_control_stub": (src.stub, "zero")}
    if src.solution:
        controls["zz_control_solution"] = (src.solution, "full")
    for name, (text, _) in controls.items():
        os.makedirs(os.path.join(subs, name))
        with open(os.path.join(subs, name, target.file), "w") as f:
            f.write(text)
    trusted = {p: sha256_file(p) for p in (s.trusted.binary("exercise_check"),
                                           os.path.join(s.trusted.kit, "lib",
                                                        "libexercise_runner_host.a"))}
    repo_state = targets_state(s)
    reports, notes = {}, {}
    roster = Roster(os.path.join(out, "roster.csv"), [target.exercise])

    def on_report(student, report, note):
        reports[student], notes[student] = report, note
        roster.add(student, report, note)
        # The controls' names sort after every attacker's: once the last attacker is done,
        # the students left are the controls.
        if control_budget is not None and all(w in reports for w in written):
            s.config.budget_s = control_budget
    start = time.monotonic()
    s.grade_batch(subs, out, on_report)
    log(f"hostile corpus, {target.exercise}: {time.monotonic() - start:.0f} s")
    exercise = s.exercises[0]
    correctness = sum(t.points for t in exercise.tests if not t.performance)
    fixed = sum(t.points for t in exercise.tests if not t.performance and
                all("shape" in c for c in t.calls))
    want = {"zero": 0, "full": correctness, "fixed": fixed}

    def counted(report):  # the correctness points (a speed test's, on a GPU, vary by run)
        return sum(r.outcome.score for er in report.results for r in er.results
                   if not r.test.performance and r.outcome.status != "pending")
    table = []
    for student, attack in sorted(written.items()):
        report = reports.get(student)
        if attack.expect == "refused":
            ok = report is None and notes.get(student, "").startswith("refused")
            shown = "refused" if ok else f"{report.totals()[0] if report else None}"
        else:
            got = counted(report) if report else None
            ok = report is not None and got == want[attack.expect] and \
                report.totals()[1] >= correctness  # the maximum never shrinks
            shown = f"{got:g}/{correctness:g}" if report else notes.get(student)
        table.append((attack.name, shown, attack.expect, first_reason(report, notes.get(student))))
        checks.check(ok, f"corpus ({s.sandbox.mode}): {attack.name} ({attack.what}) -> "
                     f"{shown_name(shown)}, must be {attack.expect}",
                     shown_name(notes.get(student, "")))
        if attack.must_say:
            said = notes.get(student, "") + "".join(
                m for er in (report.results if report else []) for m in er.build_errors.values())
            missing = [w for w in attack.must_say if w not in said]
            checks.check(not missing, f"corpus: {attack.name}: the refusal names each variant "
                         f"({', '.join(attack.must_say)})", f"missing {missing}: {said[:600]}")
    for name, (_, expect) in controls.items():
        after = counted(reports[name]) if reports.get(name) else None
        checks.check(after == want[expect], f"corpus: {name} scores {after} after the "
                     f"attackers, as it must ({want[expect]:g})", notes.get(name, ""))
    if "daemon" in written and "daemon" in reports:
        checks.check(reports["daemon"].seconds < 90,
                     f"corpus: the daemon's grandchild held nothing ({reports['daemon'].seconds:.0f} "
                     f"s for the whole submission, the child sleeps 120 s)")
    # No secret in any report of any attacker (read_secrets, read_keys, include_key, the
    # oracle ...): the reports as written, console and results.json, and the roster.
    texts = [json.dumps(reports_gradescope(r)) + console(r, verbose=True)
             for r in reports.values() if r is not None] + list(notes.values())
    with open(os.path.join(out, "roster.csv")) as f:
        texts.append(f.read())
    found = leaked(texts)
    checks.check(not found, f"corpus, {target.exercise}: no secret reached any report "
                 f"({len(texts)} reports and the roster)", str(found))
    honest = reports.get("zz_control_solution") or reports.get("zz_control_stub")
    for name in ("dozer", "template_bomb"):
        report = reports.get(name)
        if report is not None and honest is not None:
            checks.check(report.seconds <= honest.seconds + 60,
                         f"corpus: {name} costs at most 60 s beyond an honest submission "
                         f"({report.seconds:.0f} s against {honest.seconds:.0f} s)",
                         first_reason(report, ""))
    changed = [p for p, h in trusted.items() if sha256_file(p) != h]
    checks.check(not changed, f"corpus, {target.exercise}: the checker and the kit are "
                 f"unchanged", str(changed))
    after_state = targets_state(s)
    changed = sorted(p for p in set(repo_state) | set(after_state)
                     if repo_state.get(p) != after_state.get(p))
    checks.check(not changed, f"corpus, {target.exercise}: what write_outside aims at in the "
                 f"repository and its build is unchanged (manifests, tests.json, binaries, "
                 f"libraries)", ", ".join(changed[:5]))
    if "formula_name" in {a.name for a in written.values()}:
        with open(os.path.join(out, "roster.csv")) as f:
            text = f.read()
        checks.check("\n=" not in text and "'=2+5" in text,
                     "corpus: roster.csv neutralises a formula in a student name")
    shared_machine_checks(checks, s, written, reports, out, budget)
    print(f"\nattack -> score ({target.exercise}, correctness points; speed pending without a "
          f"GPU)", flush=True)
    for name, shown, expect, why in table:
        print(f"  {name:<26} {shown:<10} ({expect}) {why}", flush=True)
    shutil.rmtree(subs, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)


def first_reason(report, note, width=96):
    """Why a submission lost its points, in one line: its first refused or failed build, else
    its first failed test that the stub's "not implemented yet" did not end (what the corpus's
    table shows beside each attack's score)."""
    if report is None:
        return shown_name(note or "")[:width]
    for er in report.results:
        for target, message in er.build_errors.items():
            lines = [line.strip() for line in (message or "").splitlines() if line.strip()]
            telling = [line for line in lines if re.search(
                r"error|undefined|multiple definition|refused|may not|outside|limit", line)]
            text = re.sub(r"\S*/students/\d+/(?:src|build)/|CMakeFiles/\S+?\.dir/", "",
                          (telling or lines or [""])[0])
            return shown_name(f"{target}: {text}")[:width]
    failed = [r.outcome.reason for er in report.results for r in er.results
              if r.outcome.status == "failed" and r.outcome.reason]
    failed.sort(key=lambda reason: "not implemented yet" in reason)  # the attack's own first
    return shown_name(failed[0].splitlines()[0] if failed else "")[:width]


def shared_machine_checks(checks, s, written, reports, out, budget):
    """The corpus's attacks on a shared machine and on the time budget (issue 32, items 4-6):
    nothing of them is left, the idle and the busy are stopped early and say why, and no
    name reaches a report or the roster with its control characters."""
    by_attack = {a.name: student for student, a in written.items()}

    def report_of(name):
        return reports.get(by_attack.get(name))
    left = s.sandbox.leftovers()
    checks.check(not left, f"corpus: nothing of any student is left ({s.sandbox.mode} sandbox: "
                 f"processes, files in the world-writable folders, System V IPC)",
                 "; ".join(left[:5]))
    hogs = [line for line in L.leftovers(s.sandbox.block, [])] if s.sandbox.block else []
    checks.check(not hogs, "corpus: no System V segment of shm_hog (4 x 256 MB) is left",
                 "; ".join(hogs[:4]))
    for name, why in (("sleeper", "used no CPU"), ("pipe_wait", "used no CPU"),
                      ("spinner", "time budget")):
        report = report_of(name)
        if report is None:
            continue
        # Every test that reached the attack says why (a call of the stub that never reaches
        # it fails "not implemented yet", and the runner goes on to the next call).
        reasons = [r.outcome.reason for er in report.results for r in er.results
                   if r.outcome.status == "failed" and "not implemented yet" not in r.outcome.reason]
        slow = report.seconds > budget + 60 if name == "spinner" else \
            report.seconds > 20 * len(reasons) + 120
        # the spinner's first tests end at their own deadline, the rest at the budget's
        said = [r for r in reasons if why in r or "not run" in r or
                (name == "spinner" and "timed out" in r)]
        checks.check(reasons and len(said) == len(reasons) and any(why in r for r in reasons)
                     and not slow,
                     f"corpus: {name} ends in {report.seconds:.0f} s, every test that ran it "
                     f"({len(reasons)}) saying why ('{why}')", "; ".join(sorted(set(reasons))[:3]))
    for name, words, what in (("tmp_fill", ("filled the disk", "file-size"),
                               "for filling the disk or /dev/shm"),
                              ("fork_hog", ("held", "memory", "SIGKILL"),
                               "for the memory its processes hold together")):
        report = report_of(name)
        if report is None or (name == "tmp_fill" and s.sandbox.mode == "bwrap"):
            continue  # bubblewrap: its /tmp and /dev/shm are small tmpfs of the run's own
        reasons = {r.outcome.reason for er in report.results for r in er.results
                   if r.outcome.status == "failed"}
        checks.check(any(w in r for r in reasons for w in words),
                     f"corpus: {name} is stopped {what}", "; ".join(sorted(reasons)[:3]))
    if "escape_name" in by_attack:
        texts = []
        for dirpath, _, names in os.walk(out):
            for n in names:
                with open(os.path.join(dirpath, n), encoding="utf-8", errors="replace") as f:
                    texts.append(f.read())
        raw = [t for t in texts if "\x1b" in t or "\x07" in t or "\u202e" in t]
        checks.check(not raw and any("e\\x1b[31mscape" in t for t in texts),
                     "corpus: a name with escape sequences reaches the reports and the roster "
                     "escaped (\\x1b), never raw", f"{len(raw)} file(s) with raw control "
                     f"characters")


def user_sandbox(checks, args, have_solutions):
    """The `user` sandbox as in a container that refuses namespaces (Gradescope's), then with
    them: what one student leaves for the next (files, a FIFO, IPC objects, a listener, a
    folder 2,500 levels deep) is gone before the next one runs, in the same batch and in a
    later one, and nothing is left at the end; nothing of the instructor's is readable by a
    student's uid (the checker as an oracle, the key, the hidden tests), the syscall filter
    holds, a dozing submission is stopped."""
    print("3f. the user sandbox without and with namespaces, students sharing a machine",
          flush=True)
    if os.geteuid() != 0:
        print("  skip  needs root", flush=True)
        return
    if not have_solutions:
        print("  skip  the attacks start from the solution", flush=True)
        return
    saved = os.environ.get(NO_NAMESPACES)
    first = hostile.SHARED_MACHINE + ("checker_oracle", "read_keys", "deep_tree",
                                      "deep_tree_read", "dozer", "filter_probe")
    later = ("tamper_read", "deep_tree_read", "checker_oracle", "read_keys", "filter_probe")
    try:
        for batch, names, namespaces in (("same batch, no namespaces", first, False),
                                         ("a later batch, namespaces", later, True)):
            if namespaces:
                os.environ.pop(NO_NAMESPACES, None)
            else:
                os.environ[NO_NAMESPACES] = "1"
            s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"),
                            exercises=[hostile.HOST.exercise], sandbox="user",
                            budget=HOST_BUDGET)
            if not namespaces and (s.sandbox.private_ipc or s.sandbox.private_net):
                checks.check(False, "user sandbox: EXERCISES_SANDBOX_NO_NAMESPACES took the "
                             "namespaces away")
            probe_dir = os.path.join(s.work, "students", "selftest-probe")
            os.makedirs(probe_dir, exist_ok=True)
            readable = s.sandbox.for_student(3).probe(s.instructor_files(), probe_dir)
            checks.check(not readable, f"user sandbox ({batch}): a probe as a student's uid "
                         f"reads or runs nothing of the instructor's "
                         f"({len(s.instructor_files())} paths: the build, the checker, the key, "
                         f"the unsealed folder, the private folder)", ", ".join(readable[:4]))
            subs = tempfile.mkdtemp(prefix="shared-machine-")
            os.chmod(subs, 0o755)
            out = tempfile.mkdtemp(prefix="shared-machine-grades-")
            written, _ = hostile.write_corpus(subs, hostile.HOST, ROOT, only=set(names))
            reports, notes = {}, {}
            start = time.monotonic()
            s.grade_batch(subs, out, lambda st, r, n: (reports.__setitem__(st, r),
                                                       notes.__setitem__(st, n)))
            log(f"user sandbox, {batch}: {time.monotonic() - start:.0f} s")
            exercise = s.exercises[0]
            full = sum(t.points for t in exercise.tests if not t.performance)
            for student, attack in sorted(written.items()):
                got = reports[student].totals()[0] if reports.get(student) else None
                want = full if attack.expect == "full" else 0
                checks.check(got == want, f"user sandbox, {batch}: {attack.name} -> {got}, "
                             f"must be {attack.expect} ({want:g})",
                             notes.get(student, "") or first_reason(reports.get(student), ""))
                if attack.name == "tmp_fill" and reports.get(student):
                    reasons = {r.outcome.reason for er in reports[student].results
                               for r in er.results if r.outcome.status == "failed"}
                    checks.check(any("filled the disk" in r for r in reasons),
                                 "user sandbox: tmp_fill is stopped for filling /tmp or /dev/shm",
                                 "; ".join(sorted(reasons)[:3]))
            found = leaked([json.dumps(reports_gradescope(r)) + console(r, verbose=True)
                            for r in reports.values() if r is not None])
            checks.check(not found, f"user sandbox, {batch}: no secret reached a report",
                         str(found))
            dozer = reports.get("dozer")
            if dozer is not None:
                honest = max((r.seconds for st, r in reports.items() if r is not None and
                              written[st].expect == "full"), default=60.0)
                checks.check(dozer.seconds <= honest + 60, f"user sandbox: the dozer costs at "
                             f"most 60 s beyond an honest submission ({dozer.seconds:.0f} s "
                             f"against {honest:.0f} s)", first_reason(dozer, ""))
            left = s.sandbox.leftovers()
            checks.check(not left, f"user sandbox, {batch}: nothing of any student is left",
                         "; ".join(left[:5]))
            if namespaces:
                # The key file readable by others: the grader refuses the hidden tests in
                # the `user` sandbox rather than grade with the passphrase in reach.
                exposed, hidden = os.path.join(subs, "exposed.key"), os.path.join(out, "h.json")
                with open(exposed, "w") as f:
                    f.write("0123456789abcdef0123\n")
                os.chmod(exposed, 0o644)
                with open(hidden, "w") as f:
                    f.write('{"exercises": []}\n')
                config = Config(root=ROOT, build_dir=s.config.build_dir,
                                manifest_path=s.config.manifest_path,
                                exercises=[hostile.HOST.exercise], sandbox="user", log=log,
                                progress=False, hidden_path=hidden, key_path=exposed,
                                uid_base=getattr(args, "uid_base", None) or S.UID_BASE)
                refusing = GradingSession(config)
                try:
                    refusing.prepare()
                    said = "prepared"
                except Exception as e:  # noqa: BLE001
                    said = str(e)
                finally:
                    refusing.close()
                checks.check("refusing" in said and "readable by other users" in said,
                             "user sandbox: --hidden is refused while the key file is readable "
                             "by others", said[:300])
            s.close()
            shutil.rmtree(subs, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)
    finally:
        if saved is None:
            os.environ.pop(NO_NAMESPACES, None)
        else:
            os.environ[NO_NAMESPACES] = saved


def tables(checks, args):
    """Host exercises answered by a table of the public tests' fixed calls (0 elsewhere)."""
    print("3g. answer tables of the public tests' fixed arguments", flush=True)
    s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"),
                    exercises=list(hostile.TABLE_FILES))
    # Graded on the fixed calls alone, so that its score holds under every seed (spec.py).
    empty = drop_drawn_calls(s.manifest, set(hostile.TABLE_FILES))
    checks.check(not empty, "tables: every test keeps a fixed call", "; ".join(empty[:6]))
    files = s.stub_files()
    for name, file in hostile.TABLE_FILES.items():
        files[f"exercises/{name}/{file}"] = hostile.answer_table(ROOT, name).encode()
    report = s.grade_files("answer_tables", files)
    for er in report.results:
        most = hostile.TABLE_MAX[er.exercise.name]
        built = not er.build_errors  # a table that does not build would score 0 for nothing
        checks.check(built and er.score <= most, f"tables: {er.exercise.name} answered from "
                     f"the public tests' fixed arguments builds and scores "
                     f"{er.score:g}/{er.max_score:g}, at most {most:g}",
                     "; ".join(list(er.build_errors)[:2]))
    # The control: the same tables graded on the calls they were made from (the fixed calls
    # whose answers the tests list) must pass them all, or the 0s above prove nothing.
    s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"),
                    exercises=list(hostile.TABLE_FILES))
    for exercise in s.exercises:
        for test in exercise.tests:
            test.calls = [c for c in test.calls if "call" in c and "args" in c and
                          not isinstance(c["expect"], (str, list))]
        exercise.tests = [test for test in exercise.tests if test.calls]
    report = s.grade_files("answer_tables_control", files)
    for er in report.results:
        checks.check(er.max_score > 0 and er.score == er.max_score,
                     f"tables: {er.exercise.name}'s table gives the listed answers "
                     f"(the control): {er.score:g}/{er.max_score:g}")


def classroom(checks, args, have_solutions):
    """The GitHub Classroom recipe grades with the template's tests, whatever the student's
    repository holds: a tests.json cut down to one easy test does not give 1/1."""
    print("3h. the GitHub Classroom recipe against an edited tests.json", flush=True)
    with open(os.path.join(TOOLS, "classroom.yml")) as f:
        workflow = f.read()
    checks.check("ref: ${{ env.TEMPLATE_COMMIT }}" in workflow and
                 "template/exercises/tools/grade.py submission submission" in workflow,
                 "classroom: the workflow grades the student's files with the template's "
                 "grader and tests, at a pinned commit")
    if not have_solutions:
        print("  skip  the attack starts from the solution", flush=True)
        return
    tree = tempfile.mkdtemp(prefix="classroom-")
    os.chmod(tree, 0o755)
    kernel = hostile.KERNEL
    folder = os.path.join(tree, "exercises", kernel.exercise)
    os.makedirs(folder)
    with open(os.path.join(ROOT, "exercises", kernel.exercise, "tests.json")) as f:
        tests = json.load(f)
    tests["tests"] = [t for t in tests["tests"] if t["name"] == "03a correct at 1x1x1 and 4097x1x3"]
    with open(os.path.join(folder, "tests.json"), "w") as f:
        json.dump(tests, f)
    src = hostile.sources(ROOT, kernel)
    only_1x1x1 = src.solution.replace(hostile.LAUNCHER, hostile.LAUNCHER +
                                      "  if ((M != 1 || N != 1 || K != 1) && (M != 4097 || N != 1 || K != 3)) return;\n", 1)
    with open(os.path.join(folder, kernel.file), "w") as f:
        f.write(only_1x1x1)
    result = os.path.join(tree, "results.json")
    argv = [sys.executable, os.path.join(TOOLS, "grade.py"), "submission", tree, "-e",
            kernel.exercise, "--strict", "--json", result, "-q", "--budget",
            str(PACKAGE_BUDGET)] + (["--build-dir", args.build_dir] if args.build_dir else []) + \
        (["--uid-base", str(args.uid_base)] if getattr(args, "uid_base", None) else [])
    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    with open(result) as f:
        got = json.load(f)
    maximum = sum(t.get("max_score", 0) for t in got["tests"] if "score" in t)
    checks.check(run.returncode == 1 and 0 < got["score"] < maximum,
                 f"classroom: a tests.json cut to one easy test changes nothing: "
                 f"{got['score']:g}/{maximum:g}, exit {run.returncode} (must be 1)",
                 run.stdout.decode(errors="replace")[-1500:])
    shutil.rmtree(tree, ignore_errors=True)


def gradescope(checks, args, have_solutions):
    print("3e. the Gradescope autograder, in a simulated /autograder", flush=True)
    ag = tempfile.mkdtemp(prefix="autograder-")
    os.chmod(ag, 0o755)
    zip_path = os.path.join(ag, "autograder.zip")
    targets = hostile.TARGETS
    # As on Gradescope: root in a container that refuses namespaces, so the `user` sandbox
    # with no namespaces of its own (where the self-test runs as root).
    as_gradescope = os.geteuid() == 0 and not getattr(args, "sandbox", None)
    grader_args = (["--uid-base", str(args.uid_base)] if getattr(args, "uid_base", None) else []) + \
        (["--sandbox", "user"] if as_gradescope else [])
    make_autograder(ROOT, zip_path, [t.exercise for t in targets], None, "90", log,
                    budget=PACKAGE_BUDGET, grader_args=grader_args)
    checks.check(os.stat(zip_path).st_mode & 0o077 == 0,
                 "gradescope: autograder.zip is readable by its owner only")
    extract(zip_path, os.path.join(ag, "source"))
    env = dict(os.environ, AUTOGRADER_ROOT=ag, AUTOGRADER_SKIP_APT="1")
    if as_gradescope:
        env[NO_NAMESPACES] = "1"
    start = time.monotonic()
    setup = subprocess.run(["bash", os.path.join(ag, "source", "setup.sh")], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    checks.check(setup.returncode == 0, f"gradescope: setup.sh built the grader "
                 f"({time.monotonic() - start:.0f} s)", setup.stdout.decode()[-3000:])
    if setup.returncode != 0:
        return
    # The stub; a hostile submission (03a defines memmove and the other library names, 01b
    # asks the checker, reads every key it can find and leaves a folder 2,500 levels deep in
    # /tmp); then the solution, which must find nothing of it.
    runs = {"stub": None, "hostile": hostile.package_attack(ROOT)}
    layout = Layout(ROOT)
    if have_solutions:
        runs["solution"] = layout.solution_of
    for name in runs:
        sub = os.path.join(ag, "submission")
        shutil.rmtree(sub, ignore_errors=True)
        os.makedirs(sub)
        for ex, file in ((t.exercise, t.file) for t in targets):
            if name == "hostile":
                with open(os.path.join(sub, file), "w") as f:
                    f.write(runs[name][file])
                continue
            src = os.path.join(layout.solutions, ex, file) if name == "solution" else \
                os.path.join(ROOT, "exercises", ex, file)
            shutil.copy(src, os.path.join(sub, file))
        # Gradescope's own file, with the earlier submissions' results (hidden tests' included):
        # written readable by all, as a container may have it.
        metadata = os.path.join(ag, "submission_metadata.json")
        with open(metadata, "w") as f:
            f.write('{"previous_submissions": []}\n')
        os.chmod(metadata, 0o644)
        run = subprocess.run([os.path.join(ag, "source", "run_autograder")], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ag)
        checks.check(os.stat(metadata).st_mode & 0o077 == 0,
                     f"gradescope: submission_metadata.json was made the grader's alone before "
                     f"the {name} ran")
        if name == "hostile":
            with open(os.path.join(ag, "results", "results.json")) as f:
                text = f.read()
            found = leaked([text])
            checks.check(not found and "memmove" in text,
                         "gradescope: the hostile submission's results.json names memmove and "
                         "holds no secret", str(found))
        path = os.path.join(ag, "results", "results.json")
        try:
            with open(path) as f:
                results = json.load(f)
        except (OSError, ValueError) as e:
            checks.check(False, f"gradescope: run_autograder wrote results.json for the {name}",
                         f"{e}\n{run.stdout.decode()[-3000:]}")
            continue
        counted = [t for t in results["tests"] if "score" in t]
        maximum = sum(t["max_score"] for t in counted)
        pending = [t for t in results["tests"] if "score" not in t]
        expected = maximum if name == "solution" else 0
        checks.check(results["score"] == expected and "execution_time" in results and
                     all("status" not in t for t in pending),
                     f"gradescope: the {name} scores {results['score']}/{maximum} "
                     f"({len(pending)} pending test(s), none shown as failed)")
    # Every call sleeps: 0, quickly, each test saying why (01b's stopped as idle; 03a's build
    # refused: a kernel exercise may not call sleep()); a grader stopped by the platform (here
    # after 20 s, in the middle of the build or the tests) still leaves a results.json.
    for name, code, extra in (("dozer", hostile.DOZER, {}),
                              ("spinner stopped by the platform", hostile.SPINNER,
                               {"AUTOGRADER_GRADER_TIMEOUT": "20"})):
        sub = os.path.join(ag, "submission")
        shutil.rmtree(sub, ignore_errors=True)
        os.makedirs(sub)
        for target in targets:
            with open(os.path.join(sub, target.file), "w") as f:
                f.write(hostile.at_entry(hostile.sources(ROOT, target).stub, code, target)
                        .replace("#pragma once\n", "#pragma once\n#include <unistd.h>\n"
                                 "#include <chrono>\n", 1))
        start = time.monotonic()
        subprocess.run([os.path.join(ag, "source", "run_autograder")], env={**env, **extra},
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ag)
        seconds = time.monotonic() - start
        try:
            with open(os.path.join(ag, "results", "results.json")) as f:
                results = json.load(f)
        except (OSError, ValueError) as e:
            checks.check(False, f"gradescope: the {name} gets a results.json", str(e))
            continue
        said = results.get("output", "") + " ".join(t.get("output", "") for t in results["tests"])
        why = ("used no CPU" if name == "dozer" else "did not finish")
        silent = [t.get("name", "") for t in results["tests"] if "score" in t and
                  not t.get("output")]
        checks.check(results["score"] == 0 and (why in said or "grading stopped" in said) and
                     not silent and seconds < (120 if extra else 300),
                     f"gradescope: the {name} scores 0 in {seconds:.0f} s with a results.json "
                     f"that says why", said[:300])
    # A broken submission (grading fails outright) still yields a results.json.
    shutil.rmtree(os.path.join(ag, "submission"))
    os.makedirs(os.path.join(ag, "submission"))
    os.symlink("/etc/passwd", os.path.join(ag, "submission", hostile.KERNEL.file))
    subprocess.run([os.path.join(ag, "source", "run_autograder")], env=env,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ag)
    with open(os.path.join(ag, "results", "results.json")) as f:
        results = json.load(f)
    checks.check(results["score"] == 0 and "symbolic link" in results["output"],
                 "gradescope: a refused submission still gets a results.json that says why")
    shutil.rmtree(ag, ignore_errors=True)


# Exercise 01a's memory-model test against the ways around it we know of (spec.py, "model";
# toolchain.py, model_source_problems): each submission is the public stub with its todo line
# deleted and one change, and must earn exactly its correctness points plus the model's where
# `model_points` is True (None: nothing, the file is refused, since issue 48 before the build
# where the preprocessor is misused: a pragma other than unroll, a #line). Built from the stub, so it
# needs nothing secret.
MODEL_EXERCISE, MODEL_FILE = "01a_coalesce", "coalesce.cuh"
STUB_MAPPING = ("  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // lanes of a warp: 32 rows\n"
                "  const int col = blockIdx.y * blockDim.y + threadIdx.y;  // ... of one column\n")
COALESCED_MAPPING = ("  const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                     "  const int col = blockIdx.x * blockDim.x + threadIdx.x;\n")
STUB_GRID = "tutorial::ceil_div(M, BLOCK_DIM), tutorial::ceil_div(N, BLOCK_DIM)"
COALESCED_GRID = "tutorial::ceil_div(N, BLOCK_DIM), tutorial::ceil_div(M, BLOCK_DIM)"
STORE = "  C[row * N + col] = regC;\n"
MODEL_ATTACKS = [
    # (name, what, edit of the untouched or the coalesced text, earns the model's points)
    ("untouched", "the mapping untouched (only the todo line deleted)", "untouched",
     lambda t: t, False),
    ("coalesced", "the mapping fixed (the control)", "coalesced", lambda t: t, True),
    ("dilute", "the mapping untouched, plus 64 cheap broadcast loads per thread to pull the "
     "average sectors per request down", "untouched",
     lambda t: t.replace(STORE, "  for (int i = 0; i < 64 * K; ++i) regC += 0.0f * A[0];\n" +
                         STORE), False),
    ("no_sanitize", "the mapping fixed, the kernel's hooks switched off by an attribute",
     "coalesced", lambda t: t.replace("__global__ void naive_gemm",
                                      "#define HIDE __attribute__((no_sanitize(\"coverage\")))\n"
                                      "HIDE __global__ void naive_gemm"), False),
    ("pragma_attribute", "the hooks switched off for every function by a pragma",
     "coalesced", lambda t: t.replace("namespace ex01a {",
                                      "_Pragma(\"clang attribute push(__attribute__((no_sanitize"
                                      "(\\\"coverage\\\"))), apply_to = function)\")\n"
                                      "namespace ex01a {").replace(
                                          "}  // namespace ex01a",
                                          "}  // namespace ex01a\n_Pragma(\"clang attribute pop\")"),
     None),  # refused before the build: a pragma other than unroll
    ("one_lane_warps", "the mapping untouched, blocks of one thread (every warp one lane)",
     "untouched", lambda t: t.replace("constexpr int BLOCK_DIM = 32;",
                                      "constexpr int BLOCK_DIM = 1;"), False),
    ("forged_figures", "the mapping untouched, a result line with fine figures added at exit",
     "untouched", lambda t: t.replace(
         "namespace ex01a {",
         "#include <cstdio>\n#include <cstdlib>\n"
         "static void forge() { if (FILE* f = std::fopen(\"results/results.txt\", \"a\")) { "
         "std::fputs(\"1 ok launches=1 gld=1,4,128 gst=1,4,128\\n\", f); std::fclose(f); } }\n"
         "static const int forged = std::atexit(forge);\nnamespace ex01a {"), None),
    ("line_directive", "a #line directive that names a system header for the kernel's lines",
     "untouched", lambda t: t.replace("__global__ void naive_gemm",
                                      "# 1 \"/usr/include/stdlib.h\" 3\n"
                                      "__global__ void naive_gemm"), None),  # refused: #line
    ("hidden_copy", "the uncoalesced reads moved into memcpy, a call the hooks do not see",
     "untouched", lambda t: t.replace(
         "regC += A[row * K + k] * B[k * N + col];",
         "{ float a, b; __builtin_memcpy(&a, &A[row * K + k], 4); "
         "__builtin_memcpy(&b, &B[k * N + col], 4); regC += a * b; }"), False),
]


def model_attacks(checks, args):
    print("3e. the memory model's test against the ways around it", flush=True)
    s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"),
                    exercises=[MODEL_EXERCISE])
    if not s.trusted.model_twins:
        print("  skip  this build has no memory model (clang++ 14+)", flush=True)
        return
    with open(os.path.join(ROOT, "exercises", MODEL_EXERCISE, MODEL_FILE)) as f:
        stub = "".join(line for line in f if "exercise::todo(" not in line)
    if STUB_MAPPING not in stub or STUB_GRID not in stub or STORE not in stub:
        checks.check(False, "model attacks: the 01a stub is not what they are written against")
        return
    base = {"untouched": stub,
            "coalesced": stub.replace(STUB_MAPPING, COALESCED_MAPPING).replace(STUB_GRID,
                                                                           COALESCED_GRID)}
    exercise = s.exercises[0]
    model = sum(t.points for t in exercise.tests if t.model is not None)
    correctness = sum(t.points for t in exercise.tests if not t.performance and t.model is None)
    for name, what, start, edit, earns in MODEL_ATTACKS:
        text = edit(base[start])
        files = {**s.stub_files(), f"exercises/{MODEL_EXERCISE}/{MODEL_FILE}": text.encode()}
        report = s.grade_files(f"model_{name}", files)
        got = report.totals()[0]
        want = 0 if earns is None else correctness + (model if earns else 0)
        why = next((r.outcome.reason for er in report.results for r in er.results
                    if r.test.model is not None), "")
        applied = text != base[start] or name in ("untouched", "coalesced")
        checks.check(got == want and applied, f"model: {name} ({what}) -> {got:g}, must be "
                     f"{want:g}" + ("" if applied else " (the edit did not apply)") +
                     (f": {why[:110]}" if why else ""), why[:300])


# Issue 32's attacks on where an answer comes from and on what the memory model sees
# (selftest/hostile.py, kernel_attacks): each graded alone, with the exercises it touches.
EARNS = {
    "nothing": lambda t: False,
    "host": lambda t: bool(t.calls) and all("refuse_gemm" in c or "call" in c for c in t.calls),
    "correct": lambda t: t.model is None,
    "all": lambda t: True,
}


def kernel_attacks(checks, args, only=None):
    print("3f. answers from the host, and accesses the memory model does not see", flush=True)
    if args.gpu:  # what a GPU lets a kernel reach (host memory under HMM) varies by machine
        print("  skip  graded without a GPU only (the CPU backend's checks; the build's are the "
              "same on every machine)", flush=True)
        return
    attacks = [a for a in hostile.kernel_attacks() if not only or a.name in only]
    stubs = {}
    for e, f in hostile.KERNEL_FILES.items():
        with open(os.path.join(ROOT, "exercises", e, f)) as fh:
            stubs[e] = fh.read()
    groups = {}
    for a in attacks:
        groups.setdefault(tuple(sorted(a.earns)), []).append(a)
    table = []
    for exercises, members in sorted(groups.items()):
        s = session_for(args, os.path.join(ROOT, "exercises", "manifest.json"),
                        exercises=list(exercises))
        if any(t.model is not None for e in s.exercises for t in e.tests) and \
                not s.trusted.model_twins:
            print(f"  skip  {[a.name for a in members]}: this build has no memory model",
                  flush=True)
            continue
        for a in members:
            files = s.stub_files()
            for e, text in a.make(stubs).items():
                files[f"exercises/{e}/{hostile.KERNEL_FILES[e]}"] = text.encode()
            report = s.grade_files(f"kernel_{a.name}", files)
            got = want = 0
            why = []
            for er in report.results:
                earns = EARNS[a.earns[er.exercise.name]]
                for r in er.results:
                    if r.test.performance:
                        continue
                    got += r.outcome.score
                    want += r.test.points if earns(r.test) else 0
                    if r.outcome.score and not earns(r.test):
                        why.append(f"{r.test.name}: {r.outcome.score:g}")
                for target, message in er.build_errors.items():
                    why.append(f"{target}: {message.splitlines()[0][:150] if message else ''}")
            counted = sum(t.points for e in s.exercises for t in e.tests if not t.performance)
            table.append((a, f"{got:g}/{counted:g}", f"{want:g}"))
            checks.check(got == want, f"kernel attack: {a.name} ({a.what}) -> {got:g}/{counted:g}, "
                         f"must be {want:g}", "; ".join(why[:4]))
            if a.must_say:
                said = "\n".join(m for er in report.results for m in er.build_errors.values())
                missing = [w for w in a.must_say if w not in said]
                checks.check(not missing, f"kernel attack: {a.name}: the refusal names each "
                             f"variant ({', '.join(a.must_say)})", f"missing {missing}: {said[:600]}")
    print("\nattack -> score without a GPU (speed tests pending) [row of issue 32: before]",
          flush=True)
    for a, shown, want in table:
        row = f"[row {a.row}: {a.before}]" if a.row else ""
        print(f"  {a.name:<28} {shown:<8} (must be {want}) {row}", flush=True)


PARTS = ("stubs", "fixture", "solutions", "faults", "model", "kernels", "corpus", "shared",
         "tables", "classroom", "gradescope", "copies")


def hide_world_readable_key(checks):
    """CI keeps the passphrase in a file every user of the machine can read
    (../shared/ci-secrets/exercises.key): the grader rightly refuses to grade in the `user`
    sandbox while it is there for the students' uids to read. The self-test (as root) copies
    it into a file of its own (mode 0600) and, in a mount namespace of its own (this process
    and what it starts, nothing else on the machine), covers the original with an empty file."""
    path = os.environ.get("EXERCISES_KEY_FILE")
    if not path or os.geteuid() != 0 or not os.path.isfile(path) or \
            not os.stat(path).st_mode & 0o044:
        return
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    private = tempfile.mkdtemp(prefix="selftest-key-")
    copy = os.path.join(private, "exercises.key")
    with open(path, "rb") as f:
        data = f.read()
    fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, data)
    os.close(fd)
    ms_rec, ms_private, ms_bind = 0x4000, 1 << 18, 4096
    hidden = libc.unshare(0x00020000) == 0 and \
        libc.mount(b"none", b"/", None, ms_rec | ms_private, None) == 0 and \
        libc.mount(b"/dev/null", path.encode(), None, ms_bind, None) == 0
    os.environ["EXERCISES_KEY_FILE"] = copy
    checks.check(hidden, f"the world-readable CI key ({path}) is covered for the self-test's "
                 f"own processes (a copy of mode 0600 is used instead)",
                 f"errno {ctypes.get_errno()}")


def selected_parts(args, have_solutions, units=False):
    """[(name, function(checks, args))]: the end-to-end parts to run, in their order (and
    first the unit tests, where they run side by side with them)."""
    parts = args.parts.split(",") if args.parts else list(PARTS)
    if args.no_corpus:
        parts = [p for p in parts if p not in ("corpus", "gradescope")]
    out = []
    if units:
        from .selftest import unit_tests
        out.append(("unit tests", unit_tests))
    if "stubs" in parts:
        out.append(("stubs", stubs))
    if "fixture" in parts:
        out.append(("fixture", fixture))
    if have_solutions and ("solutions" in parts or "faults" in parts):
        with_faults = "faults" in parts
        out.append(("solutions, faults" if with_faults else "solutions",
                    lambda checks, args: solutions(checks, args, faults=with_faults)))
    if "model" in parts:
        out.append(("model", model_attacks))
    if "kernels" in parts:
        out.append(("kernels", kernel_attacks))
    if "corpus" in parts:  # its batches, each a part of its own
        out.append((f"corpus {hostile.KERNEL.exercise}",
                    lambda checks, args: corpus(checks, args, have_solutions,
                                                only=hostile.KERNEL.exercise)))
        if not args.gpu:
            for label, names in hostile.host_batches():
                out.append((f"corpus {hostile.HOST.exercise} ({label})",
                            lambda checks, args, names=names, label=label:
                            corpus(checks, args, have_solutions, only=hostile.HOST.exercise,
                                   attacks=names, label=label)))
    if "shared" in parts and not args.gpu:
        out.append(("shared", lambda checks, args: user_sandbox(checks, args, have_solutions)))
    if "tables" in parts:
        out.append(("tables", tables))
    if "classroom" in parts and not args.gpu:
        out.append(("classroom", lambda checks, args: classroom(checks, args, have_solutions)))
    if "gradescope" in parts and not args.gpu:
        out.append(("gradescope", lambda checks, args: gradescope(checks, args, have_solutions)))
    if "copies" in parts and not args.gpu:  # selftest_copies.py (issue 46)
        from . import selftest_copies
        out.append(("copies", lambda checks, args: selftest_copies.run(checks, args)))
    return out


def run(checks, args, have_solutions):
    hide_world_readable_key(checks)
    side = getattr(args, "lanes", 1) > 1
    selected = selected_parts(args, have_solutions,
                              units=side and not getattr(args, "no_unit_tests", False))
    if side:
        side_by_side(checks, args, have_solutions, selected)
        return
    timed = []
    for name, fn in selected:
        start, cpu = time.monotonic(), cpu_seconds()
        fn(checks, args)
        timed.append((name, time.monotonic() - start, cpu_seconds() - cpu))
    close_sessions(checks)
    print("\nend-to-end parts' wall time and CPU time: " +
          ", ".join(f"{n} {s:.0f} s ({c:.0f} s CPU)" for n, s, c in timed), flush=True)


def cpu_seconds():
    """CPU time (user and system) of this process and of every process it has reaped."""
    import resource
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


# --- the parts side by side (--lanes) ----------------------------------------------------------
#
# Most of the end-to-end parts' time is waiting, not computing: the idle watch's seconds before
# it stops a sleeper, the dozers, the spinners that run into their budget, the hogs, the
# Gradescope package's platform timeout. So the parts run side by side, each in a process of
# its own (`grade.py selftest --job PART`), at most --lanes at once, with exactly the checks
# they make one after another. A process of its own, not a thread: a grading session ends every
# process of its students and every orphan that comes back to it (it is a subreaper), which
# would reach the other parts' processes; and each session takes a uid block of its own
# (sandbox._take_uid_block), so that no part's students meet another part's.
#
# The longest parts start first (their wall time in a CI run on a slow machine, seconds; a part
# not listed last).
EXPECTED_S = {"solutions, faults": 745, "corpus 01b_sectors (1 of 2)": 390, "gradescope": 383,
              "kernels": 339, "corpus 01b_sectors (2 of 2)": 255, "copies": 241, "shared": 189,
              "solutions": 170, "model": 123, "stubs": 94, "corpus 03a_bounds": 94,
              "unit tests": 72, "fixture": 72, "tables": 19, "classroom": 16}
# (The part that runs alone, ALONE below, starts first, before the longest.)


# Parts whose students run in the `user` sandbox, which shares the machine's /tmp (and IPC
# without namespaces) with every other process: what one part's hostile students leave there
# (a folder 2,500 levels deep, a full /tmp) is what another part's checks look for, or fail
# on. At most one of them runs at a time; the bubblewrap parts have a /tmp of their own.
SHARED_TMP = {"shared", "gradescope", "corpus 03a_bounds"}
# And the shared-machine part runs alone: its tmp_fill student, without namespaces, writes into
# the machine's own /dev/shm (memory) and /tmp until something refuses, and in one CI run the
# build of a part beside it failed while it did (the copies part: every runner after the
# seventh unbuilt; alone, the same part passed).
ALONE = {"shared"}


def prebuild(args):
    """The repository build's programs that the parts use (the checker, the kit, the runners
    the stubs are graded with), built before any part starts: the parts then find them up to
    date, and none of them rebuilds what the corpus checks is unchanged (targets_state)."""
    manifest = load_manifest(os.path.join(ROOT, "exercises", "manifest.json"), ROOT)
    trusted = TrustedBuild(ROOT, os.path.abspath(args.build_dir or os.path.join(ROOT, "build")),
                           args.jobs, log)
    trusted.prepare_tools(machine_has_gpu())
    built = trusted.build(runner_targets(trusted, manifest.select([])), progress=True)
    broken = [t for t, (ok, _) in built.items() if not ok]
    if broken:
        log(f"note: the repository build's runners {', '.join(broken)} do not build (the "
            f"stubs part says what that costs)")


def job_argv(args, name, results, have_solutions):
    argv = [sys.executable, os.path.join(TOOLS, "grade.py"), "selftest", "--job", name,
            "--job-results", results, "-j", str(args.jobs)]
    if have_solutions:
        argv.append("--job-solutions")
    for flag, value in (("--sandbox", getattr(args, "sandbox", None)),
                        ("--uid-base", getattr(args, "uid_base", None)),
                        ("--build-dir", args.build_dir), ("--parts", args.parts)):
        if value:
            argv += [flag, str(value)]
    return argv + (["--gpu"] if args.gpu else []) + (["--no-corpus"] if args.no_corpus else [])


def side_by_side(checks, args, have_solutions, selected):
    """Runs the selected parts as jobs, at most args.lanes at once, the longest first; each
    part's output is printed whole when it ends, its checks counted here."""
    import signal
    print(f"end-to-end parts side by side, at most {args.lanes} at once (--lanes 1: one after "
          f"another); each part's output is shown when it ends", flush=True)
    prebuild(args)
    folder = tempfile.mkdtemp(prefix="selftest-jobs-")
    pending = sorted((name for name, _ in selected),
                     key=lambda n: (n not in ALONE, -EXPECTED_S.get(n, 0)))
    # Every part's students share /tmp where no part has bubblewrap's own (--sandbox user or
    # none): then no two parts run at once.
    shared_tmp = set(pending) if getattr(args, "sandbox", None) in ("user", "none") or \
        not shutil.which("bwrap") else SHARED_TMP
    running = {}  # name -> (process, output file, results path, start)
    timed, left = [], []
    try:
        while pending or running:
            while pending and len(running) < args.lanes:
                # the longest part left that meets no running part in the machine's /tmp
                ready = [n for n in pending
                         if (n not in shared_tmp or not shared_tmp.intersection(running)) and
                         not ALONE.intersection(running) and (n not in ALONE or not running)]
                if not ready:
                    break
                name = ready[0]
                pending.remove(name)
                slug = re.sub(r"\W+", "_", name)
                out = open(os.path.join(folder, f"{slug}.log"), "w+")
                results = os.path.join(folder, f"{slug}.json")
                proc = subprocess.Popen(job_argv(args, name, results, have_solutions),
                                        stdout=out, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
                running[name] = (proc, out, results, time.monotonic())
                print(f"-- {name}: started", flush=True)
            time.sleep(0.5)
            for name, (proc, out, results, started) in list(running.items()):
                # wait4, not poll: the CPU time of the part and of every process it reaped
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid == 0:
                    continue
                proc.returncode = os.waitstatus_to_exitcode(status)
                del running[name]
                seconds = time.monotonic() - started
                cpu = usage.ru_utime + usage.ru_stime
                timed.append((name, seconds, cpu))
                out.seek(0)
                print(f"\n-- {name}: ended after {seconds:.0f} s ({cpu:.0f} s of CPU time); "
                      f"its output:", flush=True)
                sys.stdout.write(out.read())
                out.close()
                try:
                    with open(results) as f:
                        got = json.load(f)
                except (OSError, ValueError):
                    got = None
                if got is None or (proc.returncode != 0 and not got["failed"]):
                    checks.check(False, f"part {name} ran to its end",
                                 f"exit status {proc.returncode}, no failed check said why")
                    if got is None:
                        continue
                checks.passed += got["passed"]
                checks.failed += got["failed"]
                left += got["left"]
                print(f"-- {name}: {got['passed']} passed, {len(got['failed'])} failed",
                      flush=True)
    finally:
        for proc, out, _, _ in running.values():  # interrupted: no part outlives the self-test
            proc.send_signal(signal.SIGTERM)
            proc.wait()
            out.close()
        shutil.rmtree(folder, ignore_errors=True)
    check_closed(checks, left)  # every part's sessions, as one check (as one after another)
    print("\nend-to-end parts' wall time (side by side) and CPU time: " +
          ", ".join(f"{n} {s:.0f} s ({c:.0f} s CPU)" for n, s, c in timed), flush=True)


def run_job(checks, args):
    """`grade.py selftest --job PART`: one part (see side_by_side), its checks written to
    --job-results as JSON."""
    found = dict(selected_parts(args, args.job_solutions, units=True))
    start = time.monotonic()
    try:
        found[args.job](checks, args)
    except Exception:  # noqa: BLE001 - one after another, the self-test would end here
        import traceback
        checks.check(False, f"part {args.job} ran to its end", traceback.format_exc()[-3000:])
    finally:
        left = close_sessions()  # checked by the self-test that started this part
        with open(args.job_results, "w") as f:
            json.dump({"passed": checks.passed, "failed": checks.failed, "left": left,
                       "seconds": time.monotonic() - start}, f)
    return 1 if checks.failed else 0
