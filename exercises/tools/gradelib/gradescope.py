"""`grade.py gradescope` (`make gradescope`): an autograder.zip that Gradescope can use as it is.

    autograder.zip
      setup.sh         Gradescope runs it once, as root, while it builds the image: installs the
                       build's packages from the distribution (and its CUDA Toolkit when there is
                       no nvcc yet), then configures and builds the grader's own programs.
      run_autograder   runs for every submission: grades /autograder/submission and always
                       writes /autograder/results/results.json: a provisional one first, then
                       after every test, then the final one (also when grading fails); the
                       grader stops at the submission's time budget, inside Gradescope's limit.
      config.sh        which exercises, which GPU architectures, the time budget
      repo/            this repository's files (no solutions, no key)
      hidden/          the hidden tests, if asked for (made 0700 before any student code runs)

Both scripts take AUTOGRADER_ROOT (default /autograder), so CI runs them on a simulated layout.
Gradescope's runners have no GPU: the kernels' correctness is graded on the CPU backend, their
access patterns by its memory model, and the speed tests are pending (no score, not counted);
`grade.py merge` adds them from a GPU run.
"""

import json
import os
import shlex
import subprocess
import zipfile

from .spec import load_manifest

SETUP = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 22.04/24.04).
set -euo pipefail
AG=${AUTOGRADER_ROOT:-/autograder}
SRC=$AG/source
. "$SRC/config.sh"
export DEBIAN_FRONTEND=noninteractive
# clang: the memory model's runners (the access-pattern tests of 01a and 06a).
packages="cmake make g++ catch2 libbenchmark-dev python3 libboost-context-dev bubblewrap gnupg clang"
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  packages="$packages nvidia-cuda-toolkit"   # the distribution's CUDA Toolkit: nvcc and cudart
fi
if [ "${AUTOGRADER_SKIP_APT:-0}" != 1 ]; then
  apt-get update
  apt-get install -y --no-install-recommends $packages
fi
export PATH=/usr/local/cuda/bin:$PATH
chmod 700 "$SRC/hidden" 2>/dev/null || true
cmake -S "$SRC/repo" -B "$AG/build" -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHITECTURES" \
      -DTUTORIAL_CPU_BACKEND=ON
cmake --build "$AG/build" -j "$(nproc)" --target exercise_check exercise_kit
"""

RUN = r"""#!/usr/bin/env bash
# Gradescope runs this for each submission, as root. It always leaves results.json: a
# provisional one before anything runs (what Gradescope shows if everything after it is
# killed), rewritten by the grader after every test and at the end.
AG=${AUTOGRADER_ROOT:-/autograder}
SRC=$AG/source
. "$SRC/config.sh"
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$AG/results"
# No student uid reads a result, the hidden tests or the grader's build (its checker); the
# grader checks it as a student's uid before any student code runs.
chmod 700 "$AG/results" "$SRC/hidden" "$AG/build" 2>/dev/null
# Gradescope's submission_metadata.json holds the earlier submissions' results, the hidden
# tests' included: root's alone too.
chmod 600 "$AG/submission_metadata.json" 2>/dev/null
printf '%s\n' "$PROVISIONAL" > "$AG/results/results.json"
hidden=()
[ -f "$SRC/hidden/tests.json" ] && hidden=(--hidden-tests "$SRC/hidden/tests.json")
# The grader stops the submission at its budget; `timeout` stops the grader itself (TERM, then
# KILL) before Gradescope's own limit, should it hang.
timeout -k 20 "${AUTOGRADER_GRADER_TIMEOUT:-$((BUDGET + 60))}" \
  python3 "$SRC/repo/exercises/tools/grade.py" submission "$AG/submission" \
  --build-dir "$AG/build" --json "$AG/results/results.json" --quiet --budget "$BUDGET" \
  $EXERCISE_ARGS "${hidden[@]}"
if [ ! -s "$AG/results/results.json" ]; then
  printf '%s\n' "$PROVISIONAL" > "$AG/results/results.json"
fi
exit 0
"""


def default_budget(timeout_minutes):
    """Seconds per submission inside Gradescope's timeout: a fifth of it (at least two
    minutes) is left for starting up, the reports and the grader's own margin."""
    limit = timeout_minutes * 60
    return max(60.0, limit - max(120.0, limit / 5))


def provisional(budget):
    return {"score": 0, "execution_time": 0, "tests": [],
            "output": f"The autograder did not finish grading this submission (it was stopped, "
                      f"or it ran past its time budget of {budget:g} s); nothing was counted. "
                      f"If it happens again, tell your instructor."}


def repository_files(root, leave_out=()):
    """The files git tracks in the repository (never an untracked file: scratch work, grades,
    submissions lying in the work tree stay out; never the unsealed instructor folder, the key
    or a build folder)."""
    proc = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError("grade.py gradescope needs the repository's git metadata")
    left_out = {os.path.realpath(p) for p in leave_out}
    files = []
    for rel in proc.stdout.decode().split("\0"):
        path = os.path.join(root, rel)
        if not rel or not os.path.isfile(path) or os.path.realpath(path) in left_out:
            continue
        if rel.startswith(("exercises/instructor/", "build/", "build-")) or \
                rel == "exercises/instructor.key":
            continue
        files.append(rel)
    return sorted(files)


def committed(root, rel):
    """A file as committed (HEAD): the student files ship as their committed stubs, whatever
    the instructor's work tree holds (a solution being tried there must not become the code
    graded for a file a student leaves out)."""
    proc = subprocess.run(["git", "-C", root, "show", f"HEAD:{rel}"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError(f"{rel} is not committed: commit the stubs first")
    return proc.stdout


def _add(z, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def chosen_hidden(hidden, exercises):
    """The hidden tests of the chosen exercises only (all of them when none is chosen): a zip
    for one exercise carries no other exercise's hidden tests."""
    with open(hidden, "rb") as f:
        data = f.read()
    if not exercises:
        return data
    tests = json.loads(data)
    tests["exercises"] = [e for e in tests.get("exercises", []) if e.get("name") in exercises]
    return (json.dumps(tests, indent=1) + "\n").encode()


def make_autograder(root, output, exercises, hidden, architectures, log=print, budget=None,
                    grader_args=()):
    """grader_args: more options for `grade.py submission` (the self-test's --uid-base)."""
    budget = default_budget(10) if budget is None else budget
    args = [a for e in exercises for a in ("-e", e)] + list(grader_args)
    config = (f"# Written by grade.py gradescope.\n"
              f"EXERCISE_ARGS={shlex.quote(' '.join(shlex.quote(a) for a in args))}\n"
              f"CUDA_ARCHITECTURES={shlex.quote(architectures)}\n"
              f"BUDGET={int(budget)}\n"
              f"PROVISIONAL={shlex.quote(json.dumps(provisional(budget)))}\n")
    # Mode 0600: with --hidden it holds the hidden tests.
    fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w") as z:
        _add(z, "setup.sh", SETUP, 0o755)
        _add(z, "run_autograder", RUN, 0o755)
        _add(z, "config.sh", config)
        student_files = {p for e in load_manifest(
            os.path.join(root, "exercises", "manifest.json"), root).exercises for p in e.paths()}
        for rel in repository_files(root, leave_out=[output]):
            if rel in student_files:
                data = committed(root, rel)
            else:
                with open(os.path.join(root, rel), "rb") as f:
                    data = f.read()
            mode = 0o755 if os.access(os.path.join(root, rel), os.X_OK) else 0o644
            _add(z, "repo/" + rel, data, mode)
        if hidden:
            _add(z, "hidden/tests.json", chosen_hidden(hidden, exercises), 0o600)
    log(f"{output}: exercises {', '.join(exercises) or 'all'}; hidden tests "
        f"{'included' if hidden else 'not included'}; GPU architectures {architectures}; "
        f"{int(budget)} s per submission (set the assignment's autograder timeout on "
        f"Gradescope to more than that)")
    return output


def extract(zip_path, dest):
    """Unpacks an autograder.zip as Gradescope does (keeping the scripts executable)."""
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            path = os.path.join(dest, info.filename)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(z.read(info))
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(path, mode)
