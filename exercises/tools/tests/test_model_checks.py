"""The checks that refuse a memory-model runner whose student code could hide accesses from
the model's hooks (gradelib/toolchain.py: model_source_problems, model_symbol_problems)."""
import os
import shutil
import subprocess
import tempfile
import unittest

from gradelib.toolchain import model_source_problems, model_symbol_problems


class SourceTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.src = os.path.join(self.dir, "src")
        os.makedirs(self.src)
        self.mine = os.path.join(self.src, "k.cuh")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def problems(self, student_lines, raw=None, system_lines="void* memcpy(void*, const void*, unsigned long);"):
        """A preprocessed file: a system header's lines, then the student's."""
        ii = os.path.join(self.dir, "entry.ii")
        with open(ii, "w") as f:
            f.write(f'# 1 "/usr/include/string.h" 1 3\n{system_lines}\n'
                    f'# 1 "{self.mine}" 1\n{student_lines}\n')
        text = raw if raw is not None else student_lines
        return model_source_problems(ii, {"k.cuh": text.encode()}, [self.src])

    def test_plain_kernels_pass_and_system_headers_are_not_the_students(self):
        self.assertEqual(self.problems("#pragma unroll\nfor (int k = 0; k < K; ++k) s += a[k];"), [])
        self.assertEqual(self.problems("__syncthreads(); __syncwarp();"), [])

    def test_ways_to_switch_the_hooks_off_or_move_data_past_them(self):
        for line in ('__attribute__((no_sanitize("coverage"))) void f();',
                     '__attribute__((__no_sanitize__("coverage"))) void f();',
                     "__attribute__((__disable_sanitizer_instrumentation__)) void f();",
                     "typedef float wide __attribute__((vector_size(32)));",
                     "atomicAdd(p, 1.0f);",
                     "float v = __atomic_load_n(p, 0);",
                     "__sync_fetch_and_add(p, 1);",
                     "__attribute__((constructor)) void early();",
                     "[[clang::no_sanitize(\"coverage\")]] void f();",
                     "__attribute__((disable_sanitizer_instrumentation)) void f();",
                     '#pragma clang attribute push (__attribute__((cold)), apply_to = function)',
                     'asm volatile("" ::: "memory");',
                     "__builtin_memcpy(&a, p, 4);",
                     "memmove(d, s, n);",
                     'void* f = dlsym(0, "x");'):
            self.assertNotEqual(self.problems(line), [], line)

    def test_a_line_directive_in_the_students_file_is_refused(self):
        for raw in ('# 1 "/usr/include/stdlib.h" 3\nint x;',
                    '#line 7 "/usr/include/stdlib.h"\nint x;',
                    '#/* a comment */line 7\nint x;',
                    '%:line 7\nint x;',
                    '#\\\nline 7\nint x;'):
            self.assertNotEqual(self.problems("int x;", raw=raw), [], raw)
        self.assertEqual(self.problems("int x; // # 1 in a comment", raw='int x; // # 1 "x"\n'), [])


@unittest.skipUnless(shutil.which("nm") and shutil.which("c++"), "nm or c++ missing")
class SymbolTests(unittest.TestCase):
    def compiled(self, code):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, "a.cpp"), "w") as f:
            f.write(code)
        subprocess.run(["c++", "-c", "-o", os.path.join(d, "a.o"), os.path.join(d, "a.cpp")],
                       check=True)
        return os.path.join(d, "a.o")

    def test_the_models_own_functions_are_out_of_reach(self):
        self.assertEqual(model_symbol_problems(self.compiled(
            'extern "C" void __sanitizer_cov_load4(unsigned*);\n'
            "void f(unsigned* p) { __sanitizer_cov_load4(p); }\n")), [])
        for code in ('#include <cstdio>\nvoid f() { std::fopen("x", "w"); }\n',
                     "#include <thread>\nvoid f() { std::thread([] {}).detach(); }\n",
                     "namespace tutorial::analyze { void begin(); }\n"
                     "void f() { tutorial::analyze::begin(); }\n",
                     'extern "C" void __sanitizer_cov_load4(unsigned*) {}\n',
                     'extern "C" void* dlsym(void*, const char*);\n'
                     'void* f() { return dlsym(nullptr, "x"); }\n'):
            self.assertNotEqual(model_symbol_problems(self.compiled(code)), [], code)


if __name__ == "__main__":
    unittest.main()
