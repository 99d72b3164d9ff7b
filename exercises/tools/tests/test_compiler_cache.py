"""What CMake found about the kit's compilers, probed once a kit (toolchain.compiler_cache) and
copied into each submission's build folder (seed_compilers): it names no folder of the probe,
the kit it came from is replaced by the kit that uses it, and a configure that starts from it
does not compile CMake's probes again, with the same answer. On a small fake kit, with the
real cmake and C++ compiler."""
import os
import shutil
import subprocess
import tempfile
import unittest

from gradelib import toolchain as T

CXX = shutil.which("c++") or shutil.which("g++")

KIT_CMAKE = """cmake_minimum_required(VERSION 3.22)
project(fake_submission LANGUAGES CXX)
if(EXERCISE_COMPILERS_ONLY)
  return()
endif()
message(STATUS "compiler: ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
"""


@unittest.skipUnless(shutil.which("cmake") and CXX, "needs cmake and a C++ compiler")
class CompilerCacheTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.kit = os.path.join(self.dir, "trusted", "kit")
        os.makedirs(os.path.join(self.kit, "cmake"))
        with open(os.path.join(self.kit, "cmake", "CMakeLists.txt"), "w") as f:
            f.write(KIT_CMAKE)
        with open(os.path.join(self.kit, "toolchain.cmake"), "w") as f:
            f.write(f'set(CMAKE_CXX_COMPILER "{CXX}" CACHE FILEPATH "")\n')

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def configure(self, kit, build):
        out = subprocess.run(["cmake", "-S", os.path.join(kit, "cmake"), "-B", build,
                              f"-DCMAKE_TOOLCHAIN_FILE={os.path.join(kit, 'toolchain.cmake')}"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True)
        return out.stdout.decode()

    def test_a_submission_configure_reads_the_probe_and_finds_the_same_compiler(self):
        cache = T.compiler_cache(self.kit)
        self.assertTrue(cache and os.path.isfile(os.path.join(cache, "CMakeCache.txt")))
        self.assertEqual(T.compiler_cache(self.kit), cache)  # once a kit: the same folder
        self.assertEqual([n for n in os.listdir(os.path.dirname(cache))], [os.path.basename(cache)])
        with open(os.path.join(cache, "CMakeCache.txt")) as f:
            text = f.read()
        self.assertNotIn(self.kit, text)  # no path of the kit or of the probe's build
        self.assertNotIn("probe-", text)
        # A run's copy of the kit elsewhere: its build folder starts from the cache.
        run_kit = os.path.join(self.dir, "run", "kit")
        shutil.copytree(self.kit, run_kit)
        seeded = os.path.join(self.dir, "run", "seed")
        T.seed_compilers(cache, self.kit, seeded, run_kit)
        build = os.path.join(self.dir, "run", "build")
        shutil.copytree(seeded, build)
        seeded_out = self.configure(run_kit, build)
        plain_out = self.configure(run_kit, os.path.join(self.dir, "run", "plain"))
        self.assertIn("Detecting CXX compiler ABI info", plain_out)
        self.assertNotIn("Detecting CXX compiler ABI info", seeded_out)
        found = [l for l in seeded_out.splitlines() if l.startswith("-- compiler:")]
        self.assertEqual(found, [l for l in plain_out.splitlines() if l.startswith("-- compiler:")])
        self.assertTrue(found)
        system = [os.path.join(d, n) for d, _, ns in os.walk(os.path.join(build, "CMakeFiles"))
                  for n in ns if n == "CMakeSystem.cmake"]
        with open(system[0]) as f:
            self.assertIn(os.path.join(run_kit, "toolchain.cmake"), f.read())

    def test_a_probe_that_fails_gives_no_cache(self):
        with open(os.path.join(self.kit, "cmake", "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.22)\nmessage(FATAL_ERROR \"no\")\n")
        self.assertIsNone(T.compiler_cache(self.kit))


if __name__ == "__main__":
    unittest.main()
