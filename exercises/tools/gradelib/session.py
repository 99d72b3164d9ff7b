"""A grading session: the small API the command line (cli.py), the Gradescope wrapper and the
self-test use.

    session = GradingSession(Config(root=..., build_dir=..., ...))
    session.prepare()                          # the trusted build, the sandbox, the kit
    report = session.grade_worktree()          # the student files of this work tree
    report = session.grade_files("alice", {"exercises/03a_bounds/bounds.cuh": b"..."})
    session.grade_batch("submissions/", "grades/")

Each submission is built and tested in a folder of its own (<work>/students/<n>/), by its own
sandbox; the grader's own files (expectations, logs, the checker's inputs) stay in
<work>/private/<n>/, which student code cannot read.
"""

import hashlib
import os
import random
import shutil
import stat
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from . import sandbox as S
from . import toolchain as T
from .execute import BudgetSpent, GraderError, Outcome, TestRunner, trim
from .race import race
from .bundle import Layout, readable_by_others
from .spec import SpecError, expand, load_manifest
from .submissions import SubmissionError, list_submissions, read_submission, shown_name
from .leftovers import remove_tree

BACKENDS = ("auto", "gpu", "cpu")


def log_stderr(message):
    print(message, file=sys.stderr, flush=True)


@dataclass
class Config:
    root: str
    build_dir: str
    manifest_path: str = ""
    exercises: List[str] = field(default_factory=list)
    jobs: int = 2
    backend: str = "auto"
    sandbox: str = "auto"
    work_dir: Optional[str] = None
    seed: Optional[int] = None
    hidden_path: Optional[str] = None
    budget_s: float = 3600.0        # per submission: builds and tests together (wall time)
    cmake_flags: List[str] = field(default_factory=list)
    uid_base: int = S.UID_BASE
    test_filter: Optional[str] = None   # only tests whose name contains this
    log: object = log_stderr
    progress: bool = True
    # batch and submission: untrusted code never runs unsandboxed unless --sandbox none says so
    require_sandbox: bool = False
    on_progress: object = None      # on_progress(partial Report) after each test (results.json)
    # Files of the instructor's the grader knows of beyond the repository's own (the key file
    # it read, a results folder): a student's uid must not be able to read them.
    instructor_paths: List[str] = field(default_factory=list)
    key_path: Optional[str] = None  # the file the passphrase was read from, if any
    rerun: str = ""                 # how the report says to draw the same run again ({seed})


@dataclass
class TestResult:
    test: object
    outcome: Outcome
    on_cpu: bool = False

    @property
    def max_score(self):
        return self.test.points


@dataclass
class ExerciseResult:
    exercise: object
    results: List[TestResult] = field(default_factory=list)
    build_errors: Dict[str, str] = field(default_factory=dict)
    note: str = ""

    @property
    def on_cpu(self):
        return any(r.on_cpu for r in self.results)

    @property
    def score(self):
        return sum(r.outcome.score for r in self.results if r.outcome.status != "pending")

    @property
    def max_score(self):
        return sum(r.max_score for r in self.results if r.outcome.status != "pending")

    @property
    def pending_points(self):
        return sum(r.max_score for r in self.results if r.outcome.status == "pending")


@dataclass
class Report:
    student: str
    results: List[ExerciseResult]
    seed: int
    sandbox: str
    backend: str
    seconds: float = 0.0
    notes: List[str] = field(default_factory=list)
    graded_files: Dict[str, str] = field(default_factory=dict)  # exercise -> sha256 (merge)
    rerun: str = ""  # how to draw the same run again, {seed} for the seed (else grade.py's)

    def totals(self):
        score = sum(e.score for e in self.results)
        maximum = sum(e.max_score for e in self.results)
        pending = sum(e.pending_points for e in self.results)
        pending_tests = sum(1 for e in self.results for r in e.results
                            if r.outcome.status == "pending")
        return score, maximum, pending, pending_tests


def check_isolation(mode, asked, required):
    """Submissions never run unsandboxed because `auto` found nothing better: only when
    --sandbox none asks for it."""
    if mode == "none" and required and asked != "none":
        raise RuntimeError("no sandbox on this machine (bubblewrap cannot create namespaces "
                           "here, and the grader is not root): grade submissions as root or "
                           "with bubblewrap, or pass --sandbox none to run them as you (only "
                           "for code you trust)")


def budget_outcome(budget_s):
    return Outcome("failed", 0.0, f"not run: the submission used up its time budget "
                   f"({budget_s:g} s for builds and tests)")


def files_hash(exercise, files):
    """The graded files of one exercise (the student's, or the stubs graded for files they
    left out), as one sha256: `merge` takes a GPU run's results only for the same files."""
    h = hashlib.sha256()
    for rel in sorted(exercise.paths()):
        data = files.get(rel)
        h.update(rel.encode() + b"\0" + (hashlib.sha256(data).digest() if data is not None
                                         else b"missing") + b"\0")
    return h.hexdigest()


def machine_has_gpu():
    if not shutil.which("nvidia-smi"):
        return False
    import subprocess
    try:
        proc = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and b"GPU" in proc.stdout


def runner_targets(trusted, exercises):
    """The repository build's runners of these exercises (what grade_worktree runs)."""
    targets = []
    for e in exercises:
        targets.append(f"{e.name}_runner")
        if e.kind == "gpu" and trusted.cpu_twins:
            targets.append(f"{e.name}_runner_cpu")
        if trusted.model_twins and any(t.model is not None for t in e.tests):
            targets.append(f"{e.name}_runner_model")
    return targets


class GradingSession:
    def __init__(self, config: Config):
        self.config = config
        self.log = config.log
        self.manifest = None
        self.exercises = []
        self.trusted = T.TrustedBuild(config.root, config.build_dir, config.jobs, self.log,
                                      config.cmake_flags)
        self.seed = config.seed if config.seed is not None else random.SystemRandom().getrandbits(31)
        self.gpu = False
        self.mode = "gpu"
        self.sandbox = None
        self.work = None
        self.kit = None
        self.prepared = False
        self.own_work = []  # what close() removes

    # --- set-up -------------------------------------------------------------------------------

    def prepare(self, sandbox=None):
        c = self.config
        self.manifest = load_manifest(c.manifest_path, c.root, c.hidden_path)
        self.exercises = self.manifest.select(c.exercises)
        if c.test_filter:
            for e in self.exercises:
                e.tests = [t for t in e.tests if c.test_filter.lower() in t.name.lower()]
            self.exercises = [e for e in self.exercises if e.tests]
            if not self.exercises:
                raise SpecError(f"no test name contains {c.test_filter!r}")
        if c.backend not in BACKENDS:
            raise SpecError(f"--backend must be one of {', '.join(BACKENDS)}")
        self.gpu = machine_has_gpu()
        self.trusted.prepare_tools(self.gpu)
        twins = self.trusted.cpu_twins
        if c.backend == "cpu" and not twins:
            raise T.BuildError("--backend cpu: this build has no CPU backend (configure with "
                               "-DTUTORIAL_CPU_BACKEND=ON; it needs Boost.Context: `make deps`)")
        self.mode = "cpu" if c.backend == "cpu" or (c.backend == "auto" and not self.gpu and twins) \
            else "gpu"
        self.sandbox = S.Sandbox(sandbox or c.sandbox, c.uid_base, self.log)
        check_isolation(self.sandbox.mode, sandbox or c.sandbox, c.require_sandbox)
        # A grading run that ended badly may have left processes, files or IPC objects of
        # this uid block behind: none of them may meet this run's students.
        self.sandbox.clear_block()
        stale = self.sandbox.leftovers()
        if stale:
            raise RuntimeError("cannot clear what an earlier grading run's students left: " +
                               "; ".join(stale[:5]))
        work = c.work_dir
        if work is None:
            if self.sandbox.root and self.sandbox.isolated:
                work = tempfile.mkdtemp(prefix="exercise-grading-")
                self.own_work.append(work)
            else:
                work = os.path.join(c.build_dir, "grade-work")
        self.work = os.path.abspath(work)
        if not os.path.isdir(self.work):
            self.own_work.append(self.work)
        os.makedirs(self.work, exist_ok=True)
        if self.sandbox.root and self.sandbox.isolated:
            os.chmod(self.work, 0o711)  # students may pass through, not list
        for sub in ("students", "private", "kit"):
            self.own_work.append(os.path.join(self.work, sub))
        for sub in ("students", "private"):
            os.makedirs(os.path.join(self.work, sub), exist_ok=True)
            os.chmod(os.path.join(self.work, sub), 0o711 if sub == "students" else 0o700)
        self.check_instructor_files()
        if self.sandbox.isolated:
            self.log(f"grading run seed {self.seed}; sandbox: {self.sandbox.describe()}")
        elif sandbox == "none" or c.sandbox == "none" and c.require_sandbox:
            self.log(f"grading run seed {self.seed}; warning: --sandbox none: the submissions' "
                     f"code runs as you, with nothing between it and this machine")
        self.prepared = True

    def instructor_files(self):
        """Everything of the instructor's a student's code must not read or run: the trusted
        build (the checker, the reference timer), the unsealed bundle, the key file wherever it
        lives, the hidden tests, the grader's private folder, and what the caller adds (the
        grades)."""
        c = self.config
        layout = Layout(c.root)
        build = self.trusted.build_dir
        paths = [build, os.path.join(build, "bin"), self.trusted.binary("exercise_check"),
                 self.trusted.binary("exercise_reference"), layout.instructor,
                 layout.solutions, layout.hidden, layout.planted, layout.key,
                 os.path.join(self.work, "private")]
        for key in (c.key_path, os.environ.get("EXERCISES_KEY_FILE")):
            if key and os.path.exists(key):
                paths.append(key)
        if c.hidden_path:
            paths += [c.hidden_path, os.path.dirname(os.path.abspath(c.hidden_path))]
        paths += list(c.instructor_paths)
        return [p for p in paths if p and os.path.exists(p)]

    def check_instructor_files(self):
        """Before any student code runs: in the `user` sandbox the grader's own files are made
        its own (mode 0700 or 0600), the hidden tests are refused while the key file is readable
        by others, and a probe as a student's uid (in bubblewrap too, whose view of the system
        could include them) must find nothing of the instructor's it can read or run."""
        c = self.config
        mode = self.sandbox.mode
        if mode == "user" and self.sandbox.root:
            layout = Layout(c.root)
            for path, bits in ((self.trusted.build_dir, 0o700), (layout.instructor, 0o700),
                               (layout.key, 0o600), (os.path.join(self.work, "private"), 0o700)):
                if os.path.exists(path):
                    os.chmod(path, bits)
        keys = [k for k in (c.key_path, os.environ.get("EXERCISES_KEY_FILE")) if k]
        if c.hidden_path and mode in ("user", "none"):
            exposed = [k for k in keys if readable_by_others(k)]
            if exposed:
                raise RuntimeError(f"refusing the hidden tests: the key file {exposed[0]} is "
                                   f"readable by other users, who include the students' code in "
                                   f"the {mode} sandbox (chmod 600 it, give the key through a "
                                   f"pipe, --key-file <(...), or grade with bubblewrap)")
        if not self.sandbox.isolated:
            return
        folder = os.path.join(self.work, "students", "probe")
        os.makedirs(folder, exist_ok=True)
        try:
            readable = self.sandbox.for_student(0).probe(self.instructor_files(), folder)
        finally:
            remove_tree(folder)
        if readable:
            raise RuntimeError("refusing to grade: a student's code could read or run files of "
                               "the instructor's here (" + ", ".join(readable[:6]) + "): make "
                               "them readable by their owner only (chmod go-rwx), move them out "
                               "of the folders the sandbox shows, or grade with bubblewrap")

    def close(self):
        """Removes the run's work folders (the students' folders, the grader's private files,
        the kit's copy), and nothing of its students stays behind."""
        if self.sandbox is not None:
            self.sandbox.clear_block()
            self.sandbox.close()
        for path in reversed(self.own_work):
            remove_tree(path)
        self.own_work = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _kit_copy(self):
        if self.kit is None:
            self.kit = T.copy_kit(self.trusted.kit, os.path.join(self.work, "kit"))
            self.include_roots = T.system_roots(os.path.join(self.kit, "toolchain.cmake"))
        return self.kit

    # --- one student ----------------------------------------------------------------------------

    def _plan(self, exercise, test):
        """(target to run in, targets that must compile, on the CPU backend?) or a pending
        reason."""
        runner, twin = f"{exercise.name}_runner", f"{exercise.name}_runner_cpu"
        if test.model is not None:
            if not self.trusted.model_twins:
                return None, ("pending: the memory model needs the CPU backend and clang++ 14 "
                              "or newer in the grader's build (`make deps`; on a GPU machine "
                              "configure with -DTUTORIAL_CPU_BACKEND=ON)")
            # On the CPU wherever it runs; reported as a CPU-backend run only where the other
            # kernel tests are too (the report's "GPU tests on the CPU backend").
            model = f"{exercise.name}_runner_model"
            return (model, [runner, model], self.mode == "cpu"), None  # nvcc's build too
        if test.cpu_backend:
            if exercise.kind != "gpu" or not self.trusted.cpu_twins:
                return None, ("pending: this test runs on the CPU backend, which this build "
                              "lacks (`make deps`; on a GPU machine configure with "
                              "-DTUTORIAL_CPU_BACKEND=ON)")
            # Reported as a CPU-backend run only where the other kernel tests are too.
            return (twin, [runner, twin], self.mode == "cpu"), None
        if test.performance:
            if self.mode != "gpu" or not self.gpu:
                return None, "pending: speed is measured on a GPU only"
            return (runner, [runner], False), None
        if exercise.kind == "host":
            if test.gpu and not self.gpu:
                return None, "pending: no GPU on this machine"
            return (runner, [runner], False), None
        if not test.gpu:
            return (runner, [runner], False), None
        if self.mode == "cpu":
            return (twin, [runner, twin], True), None
        if not self.gpu:
            return None, "pending: no GPU on this machine, and no CPU backend in this build"
        return (runner, [runner], False), None

    def _grade(self, student, binaries, sandbox, home, private, started, partial=None,
               cleanup=None):
        """Runs every test of every exercise with the built runners: {target: (path, msg)}.
        `partial(results so far)`: after each test (a results.json that survives the grader
        being killed)."""
        c = self.config
        tests = TestRunner(sandbox, self.trusted.binary("exercise_check"), self.trusted.verify,
                           os.path.join(home, "runs"), private, self.log,
                           deadline=started + c.budget_s, budget_s=c.budget_s,
                           cleanup=cleanup)
        tests.addr2line = self.trusted.addr2line
        os.makedirs(os.path.join(home, "runs"), exist_ok=True)
        if sandbox.uid is not None:
            os.chmod(os.path.join(home, "runs"), 0o711)
        results = []
        total = sum(len(e.tests) for e in self.exercises)
        done = 0
        for exercise in self.exercises:
            er = ExerciseResult(exercise)
            for target, (path, message) in binaries.items():
                if path is None and target.startswith(exercise.name + "_runner"):
                    er.build_errors[target] = message
            ordered = [t for t in exercise.tests if not t.hidden] + \
                      [t for t in exercise.tests if t.hidden]
            for test in ordered:
                done += 1
                plan, pending = self._plan(exercise, test)
                on_cpu = bool(plan and plan[2])
                if pending:
                    outcome = Outcome("pending", 0.0, pending)
                elif any(binaries.get(t, (None, ""))[0] is None for t in plan[1]):
                    broken = next(t for t in plan[1] if binaries.get(t, (None, ""))[0] is None)
                    outcome = Outcome("failed", 0.0, f"{broken} does not compile",
                                      er.build_errors.get(broken, ""))
                elif time.monotonic() - started >= c.budget_s:
                    outcome = budget_outcome(c.budget_s)
                else:
                    outcome = self._run_one(exercise, test, plan, binaries, tests, on_cpu)
                er.results.append(TestResult(test, outcome, on_cpu))
                if partial is not None:
                    partial(results + [er])
                if c.progress:
                    where = " [CPU backend]" if on_cpu else ""
                    self.log(f"  [{done:>3}/{total}] {outcome.status:<7} {test.qualified}{where} "
                             f"({outcome.seconds:.1f} s)")
            results.append(er)
        return results

    def _run_one(self, exercise, test, plan, binaries, tests, on_cpu):
        target = plan[0]
        # The model's runner and a "backend": "cpu" test's twin are CPU programs.
        on_cpu = on_cpu or test.model is not None or test.cpu_backend
        binary = binaries[target][0]
        try:
            if test.performance:
                self.trusted.verify(self.trusted.binary("exercise_reference"))
                return race(test, self.seed, tests, binary,
                            self.trusted.binary("exercise_reference"), self.trusted.verify)
            calls = expand(test, self.seed, cpu_backend=on_cpu)
            timeout = test.timeout_s
            if on_cpu:
                timeout = max(timeout, float(self.manifest.defaults.get("timeout_s", {})
                                             .get("cpu", timeout)))
            gpu = exercise.kind == "gpu" and not on_cpu and self.gpu
            env = {}
            if on_cpu and "TUTORIAL_CPU_SEED" not in os.environ:
                # The CPU backend's thread order, new in every run (the default seed would
                # give every run the same order) and reproducible with --seed.
                order = random.Random(f"{self.seed}/{test.qualified}/order").getrandbits(63)
                env["TUTORIAL_CPU_SEED"] = str(order)
            return tests.run_test(test, calls, binary, gpu, timeout, env)
        except BudgetSpent:
            return budget_outcome(self.config.budget_s)
        except GraderError as e:
            return Outcome("pending", 0.0, f"grader error: {e} (not the submission's fault: "
                           f"grade it again)", trim(traceback.format_exc()))
        except (OSError, RuntimeError, ValueError) as e:
            return Outcome("failed", 0.0, f"grader error: {e}",
                           trim(traceback.format_exc()))

    def _hash(self, binaries):
        """Runners are hashed once built and checked before every run."""
        for path, _ in binaries.values():
            if path:
                self.trusted.hashes[path] = T.sha256_file(path)

    def _partial(self, student, sandbox, started, graded_files):
        """on_progress's argument after each test: the report so far, every test not run yet
        failed with the reason it would have if grading stopped now (the autograder's time
        ran out), so that a grader killed mid-way still leaves a results.json."""
        if self.config.on_progress is None:
            return None

        def partial(done):
            by_name = {er.exercise.name: er for er in done}
            results = []
            for exercise in self.exercises:
                er = ExerciseResult(exercise)
                have = by_name.get(exercise.name)
                if have is not None:
                    er.results, er.build_errors = list(have.results), dict(have.build_errors)
                ran = {r.test.name for r in er.results}
                er.results += [TestResult(t, Outcome("failed", 0.0, "not run: grading stopped "
                                                     "before this test (the autograder's time "
                                                     "limit?)"))
                               for t in exercise.tests if t.name not in ran]
                results.append(er)
            self.config.on_progress(Report(student, results, self.seed, sandbox.describe(),
                                           self.mode, time.monotonic() - started,
                                           graded_files=graded_files, rerun=self.config.rerun))
        return partial

    def grade_worktree(self):
        """The student files of this work tree, with the runners of the repository's build
        (what `make check` in an exercise folder runs)."""
        assert self.prepared
        started = time.monotonic()
        targets = runner_targets(self.trusted, self.exercises)
        self.log(f"building {len(targets)} runner(s) in {self.trusted.build_dir} (the first "
                 f"build takes a few minutes) ...")
        built = self.trusted.build(targets, progress=True)
        binaries = {t: (self.trusted.binary(t) if ok else None, message)
                    for t, (ok, message) in built.items()}
        self._hash(binaries)
        sandbox = self.sandbox.for_student(0)
        home = os.path.join(self.work, "students", "worktree")
        private = os.path.join(self.work, "private", "worktree")
        for d in (home, private):
            remove_tree(d)
            os.makedirs(d)
        files = self.stub_files()  # this tree's files, as graded
        graded = {e.name: files_hash(e, files) for e in self.exercises}
        try:
            results = self._grade("worktree", binaries, sandbox, home, private, started,
                                  self._partial("worktree", sandbox, started, graded))
        finally:
            sandbox.clear()
            remove_tree(home)
        return Report("worktree", results, self.seed, sandbox.describe(), self.mode,
                      time.monotonic() - started, graded_files=graded, rerun=self.config.rerun)

    def grade_files(self, student, files, index=0, notes=(), submitted=None):
        """One submission: {path relative to the repository: bytes} of the files to grade;
        `submitted`: the paths the student handed in (default: all of `files`), the others
        are noted "not submitted"."""
        assert self.prepared
        started = time.monotonic()
        shown = shown_name(student)
        kit = self._kit_copy()
        sandbox = self.sandbox.for_student(index)
        # Nothing of an earlier student (this uid's or any other of the block) is left where
        # this one's code could find it: removed, then checked.
        sandbox.clear()
        stale = sandbox.leftovers()
        if stale:
            sandbox.clear_block()
            stale = sandbox.leftovers()
        if stale:
            raise GraderError("what earlier students left cannot be removed: " +
                              "; ".join(stale[:5]))
        slot = f"{index:04d}"
        home = os.path.join(self.work, "students", slot)
        private = os.path.join(self.work, "private", slot)
        for d in (home, private):
            remove_tree(d)
            os.makedirs(d)
        os.chmod(home, 0o711)
        os.chmod(private, 0o700)
        forbidden = [self.config.root, self.work, os.path.dirname(self.config.root)]
        build = T.StudentBuild(kit, home, sandbox, self.config.jobs, self.log,
                               self.include_roots, forbidden,
                               budget=started + self.config.budget_s)
        graded = {e.name: files_hash(e, files) for e in self.exercises}
        cleanup = []  # what of this submission could not be removed (its row says so)
        try:
            self.log(f"building {shown}'s runners ...")
            binaries = build.build(self.exercises, files, private, self.trusted.cpu_twins,
                                   self.trusted.model_twins)
            self._hash(binaries)
            results = self._grade(student, binaries, sandbox, home, private, started,
                                  self._partial(shown, sandbox, started, graded), cleanup)
        finally:
            # Nothing of this submission stays where code can reach it, whatever happened:
            # its processes, its files in the shared temporary folders and IPC, its folder
            # (sources, build, runners); of the grader's private folder only the logs stay.
            # Nothing here may fail the next student: what cannot be removed is taken from
            # this uid (leftovers.neutralize) and noted on this student's row.
            try:
                cleanup += sandbox.clear()
                cleanup += remove_tree(home)
                for entry in os.listdir(private):
                    if os.path.isdir(os.path.join(private, entry, "results")):
                        cleanup += remove_tree(os.path.join(private, entry, "results"))
                left = sandbox.leftovers()
                if left:
                    cleanup += left
                    self.log(f"   warning: after {shown}, left behind: {'; '.join(left[:5])}")
            except Exception as e:  # noqa: BLE001 - one student's leftovers, not the batch's
                cleanup.append(f"the clean-up failed: {e}")
        if cleanup:
            notes = list(notes) + [f"grader: what this submission left could not all be removed "
                                   f"(what is left is out of every student's reach): "
                                   f"{'; '.join(shown_name(c) for c in cleanup[:3])}"]
        report = Report(shown, results, self.seed, sandbox.describe(), self.mode,
                        time.monotonic() - started, list(notes), graded_files=graded,
                        rerun=self.config.rerun)
        submitted = set(files) if submitted is None else set(submitted)
        for er in results:
            missing = [os.path.basename(p) for p in er.exercise.paths() if p not in submitted]
            er.note = ("not submitted: " + ", ".join(missing) + " (stub graded)") if missing else ""
        return report

    def stub_files(self, exercises=None):
        """The committed stubs, for files a submission lacks."""
        out = {}
        for e in exercises or self.exercises:
            for rel in e.paths():
                with open(os.path.join(self.config.root, rel), "rb") as f:
                    out[rel] = f.read()
        return out

    def grade_folder(self, student, path, index=0):
        """A submission folder or archive: the student's files found in it (the stubs for
        those it lacks)."""
        found, notes = read_submission(path, self.exercises)
        files = self.stub_files()
        files.update(found)
        return self.grade_files(student, files, index, notes, submitted=found)

    def _safe_reporter(self, on_report):
        """on_report that cannot end the batch: if writing one student's report fails (a full
        disk, a name the file system refuses), the roster still gets a row saying so."""
        def report(student, result, note):
            try:
                on_report(student, result, note)
            except Exception as e:  # noqa: BLE001
                self.log(f"   {shown_name(student)}: cannot write the report: {e}")
                try:
                    on_report(student, None, f"grader error: cannot write the report: {e}")
                except Exception:  # noqa: BLE001
                    pass
        return report

    def grade_batch(self, submissions, out, on_report):
        """Every submission of a folder; on_report(student, report or None, note) after each
        (the roster is written row by row). A refused submission or an unexpected error costs
        that student only."""
        entries, refused = list_submissions(submissions)
        on_report = self._safe_reporter(on_report)
        for student, why in refused:
            self.log(f"== {shown_name(student)}: refused: {shown_name(why)}")
            on_report(student, None, f"refused: {why}")
        for index, (student, path) in enumerate(entries):
            shown = shown_name(student)
            self.log(f"== {shown}")
            try:
                report = self.grade_folder(student, path, index)
            except SubmissionError as e:
                self.log(f"   {shown}: refused: {shown_name(str(e))}")
                on_report(student, None, f"refused: {e}")
                continue
            except Exception as e:  # noqa: BLE001 - one student's problem, not the batch's
                self.log(f"   {shown}: grader error: {e}\n{traceback.format_exc()}")
                on_report(student, None, f"grader error: {e}")
                continue
            score, maximum, _, _ = report.totals()
            self.log(f"   {shown}: {score:g}/{maximum:g} ({report.seconds:.0f} s)")
            on_report(student, report, "")
