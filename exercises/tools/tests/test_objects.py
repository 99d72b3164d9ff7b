"""What a kernel exercise's compiled code may contain (gradelib/objects.py): the allow-list of
undefined symbols, the scan for macros that tell the builds apart, and the memory model's IR
check, each on small programs compiled here with the real compilers."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from gradelib import objects as O

# The memory model's flags that matter here (common/cpu_backend/analyze/CMakeLists.txt), and
# the section cuda_shim.hpp puts __global__ functions in for that build.
MODEL_FLAGS = ["-std=c++17", "-O2", "-fsanitize-coverage=func,trace-loads,trace-stores",
               "-fstack-clash-protection", "-fno-vectorize", "-fno-slp-vectorize", "-w"]
PRELUDE = ('#define __global__ __attribute__((section("tutorial_kernels")))\n#define __device__\n'
           "#include <algorithm>\n#include <array>\n#include <cstring>\n#include <cwchar>\n"
           "#include <strings.h>\n")


def compiler(*names):
    return next((shutil.which(n) for n in names if shutil.which(n)), None)


CLANG = compiler("clang++", "clang++-19", "clang++-18", "clang++-17", "clang++-16",
                 "clang++-15", "clang++-14")
GXX = compiler("g++", "c++")


class IRTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def problems(self, code):
        src, ll = os.path.join(self.dir, "k.cpp"), os.path.join(self.dir, "k.ll")
        with open(src, "w") as f:
            f.write(PRELUDE + code)
        subprocess.run([CLANG, *MODEL_FLAGS, "-S", "-emit-llvm", src, "-o", ll], check=True)
        return O.model_ir_file_problems(ll)

    @unittest.skipUnless(CLANG, "needs clang++")
    def test_hooked_accesses_pass(self):
        self.assertEqual(self.problems(
            "__device__ float twice(float x) { return 2 * x; }\n"
            "__global__ void k(const float* in, float* out, int i) {\n"
            "  float local[4];\n  std::memcpy(local, in + i, sizeof local);  // SROA: 4 loads\n"
            "  out[i] = twice(local[0] + local[3]);\n}\n"
            "void host_only(float* a, const float* b) { std::memcpy(a, b, 64); }  // not a kernel's\n"), [])

    @unittest.skipUnless(CLANG, "needs clang++")
    def test_every_route_past_the_hooks_is_refused(self):
        routes = {
            "long double": "out[i] = float(*reinterpret_cast<const long double*>(in + i));",
            "_BitInt(96)": "out[i] = float(*reinterpret_cast<const _BitInt(96)*>(in + i));",
            "a struct copied whole": "struct Tri { float a, b, c; };\n"
                                     "  *reinterpret_cast<Tri*>(out + i) = *reinterpret_cast<const Tri*>(in + i);",
            "std::array copied whole": "using A = std::array<float, 8>;\n"
                                       "  *reinterpret_cast<A*>(out + i) = *reinterpret_cast<const A*>(in + i);",
            "std::copy": "std::copy(in + i, in + i + 3, out + i);",
            "wmemcpy": "std::wmemcpy(reinterpret_cast<wchar_t*>(out) + i, reinterpret_cast<const wchar_t*>(in) + i, 1);",
            "mempcpy": "mempcpy(out + i, in + i, sizeof(float) * unsigned(i));",
            "bcopy": "bcopy(in + i, out + i, 4 * unsigned(i));",
            "memcpy": "__builtin_memcpy(out + i, in + i, 12);",
            "inline assembly": 'asm volatile("" ::: "memory"); out[i] = in[i];',
            "a call through a pointer": "auto f = reinterpret_cast<void (*)(float*)>(const_cast<float*>(in)); f(out);",
            "an atomic": "__atomic_fetch_add(reinterpret_cast<int*>(out) + i, 1, __ATOMIC_RELAXED);",
            "printf": '__builtin_printf("%s", reinterpret_cast<const char*>(in));',
        }
        for what, body in routes.items():
            with self.subTest(route=what):
                self.assertNotEqual(self.problems(
                    f"__global__ void k(const float* in, float* out, int i) {{\n  {body}\n}}\n"), [])

    @unittest.skipUnless(CLANG, "needs clang++")
    def test_a_local_reaches_other_memory_only_through_offsets_refused(self):
        """An unhooked access passes on the kernel's own locals at constant offsets; a local plus
        a run-time offset, or a pointer stepped from a local around a loop, can be any address."""
        self.assertEqual(self.problems(
            "__global__ void k(const float* in, float* out, int i) {\n"
            "  volatile long double local[2];\n  local[1] = in[i];\n"
            "  out[i] = float(local[1]);\n}\n"), [])
        routes = {
            "an offset": "char local[16];\n"
                         "  volatile long long d = (long long)((const char*)(in + i) - local);\n"
                         "  out[i] = float(*(const volatile long double*)(local + d));",
            "a loop": "char local[16];\n  const char* p = local;\n"
                      "  volatile unsigned long long target = (unsigned long long)(in + i);\n"
                      "  while ((unsigned long long)p < target) p += 4096;\n"
                      "  while ((unsigned long long)p > target) p -= 1;\n"
                      "  out[i] = float(*(const volatile long double*)p);",
            # its address is the stack pointer minus a size of the code's choosing: any address
            "an alloca of a run-time size":
                "char* at = (char*)__builtin_alloca((unsigned long)(in + i));\n"
                "  out[i] = float(*(const volatile long double*)at);",
        }
        for what, body in routes.items():
            with self.subTest(route=what):
                problems = self.problems(
                    f"__global__ void k(const float* in, float* out, int i) {{\n  {body}\n}}\n")
                self.assertTrue(any("hooks do not see" in p for p in problems), problems)
                if what == "an offset":
                    self.assertTrue(any("one constant offset" in p for p in problems), problems)

    @unittest.skipUnless(CLANG, "needs clang++")
    def test_selects_among_offsets_of_locals_are_refused_in_linear_time(self):
        """Selects that pick among offsets from locals with bits of the data are an offset
        computed at run time; nested 40 deep they must be judged in time linear in their
        number (each value visited once), not one visit per path."""
        levels = "".join(
            f"  {{ A* nx = (k & (1 << {b % 30})) ? x + 1 : (A*)(y + 1);\n"
            f"    B* ny = (n & (1 << {b % 30})) ? (B*)(x + 1) : y + 1;\n    x = nx; y = ny; }}\n"
            for b in range(40))
        code = ("struct A { float v[4]; };\nstruct B { float v[8]; };\n"
                "__global__ void kern(const float* in, float* out, int k, int n) {\n"
                "  A bufa[100]; B bufb[100];\n  A* x = bufa; B* y = bufb;\n" + levels +
                "  *(volatile long double*)x = in[0];\n  out[0] = float(*(volatile long double*)x);\n}\n")
        start = time.monotonic()
        problems = self.problems(code)
        self.assertLess(time.monotonic() - start, 60)
        self.assertTrue(any("hooks do not see" in p for p in problems), problems)
        # the same local at one constant offset, reached through a select of equal arms, passes
        self.assertEqual(self.problems(
            "__global__ void kern(const float* in, float* out, int i) {\n"
            "  volatile long double local[4];\n  volatile long double* p = i ? &local[2] : &local[2];\n"
            "  *p = in[i];\n  out[i] = float(*p);\n}\n"), [])

    def test_only_a_fixed_size_local_once_allocated_within_its_bounds_passes(self):
        def problems(alloca, offset, first_label=""):
            return O.model_ir_problems(
                'define void @k(ptr %0) section "tutorial_kernels" {\n' + first_label +
                f"  %2 = alloca {alloca}, align 16\n"
                f"  %3 = getelementptr inbounds i8, ptr %2, i64 {offset}\n"
                "  store volatile x86_fp80 0xK00000000000000000000, ptr %3, align 16\n"
                "  ret void\n}\n")
        self.assertEqual(problems("[4 x x86_fp80]", 48), [])
        self.assertEqual(problems("[4 x x86_fp80]", 48, "entry:\n"), [])  # a named entry block
        self.assertNotEqual(problems("[4 x x86_fp80]", 64), [])             # past its end
        self.assertNotEqual(problems("[4 x x86_fp80]", -16), [])            # before its start
        self.assertNotEqual(problems("[65536 x x86_fp80]", 16), [])         # 1 MB: over 64 KB
        self.assertNotEqual(problems("i8, i64 %4", 0), [])                  # a run-time size
        ir = ('define void @k(ptr %0, i1 %c) section "tutorial_kernels" {\n'
              "  br label %1\n1:\n  %2 = alloca [4 x x86_fp80], align 16\n"  # not the entry block
              "  store volatile x86_fp80 0xK00000000000000000000, ptr %2, align 16\n"
              "  br i1 %c, label %1, label %3\n3:\n  ret void\n}\n")
        self.assertNotEqual(O.model_ir_problems(ir), [])

    def test_an_alloca_of_run_time_size_is_refused_even_unread(self):
        """An alloca of any size moves the stack pointer, also upwards past every fiber stack
        (a "negative" size), where the next function's locals would lie on device memory."""
        ir = ('define void @k(ptr %0, i64 %n) section "tutorial_kernels" {\n'
              "  %2 = alloca i8, i64 %n, align 16\n  ret void\n}\n")
        self.assertTrue(any("stack pointer" in p for p in O.model_ir_problems(ir)))
        # nothing to refuse where the size is fixed and the alloca is at the function's start
        self.assertEqual(O.model_ir_problems(ir.replace("i64 %n", "i64 16")), [])

    def test_a_frame_of_any_size_is_refused(self):
        """A constant but huge alloca (a negative size read as unsigned, 2^36 bytes) moves the
        stack pointer where the code chooses as surely as a run-time one."""
        for alloca in ("[18446742974197923840 x i8]", "[68719480832 x i8]", "i8, i64 -16"):
            with self.subTest(alloca=alloca):
                ir = ('define void @k(ptr %0) section "tutorial_kernels" {\n'
                      f"  %2 = alloca {alloca}, align 16\n  ret void\n}}\n")
                self.assertTrue(any("stack pointer" in p for p in O.model_ir_problems(ir)))

    def test_copies_and_fills_of_a_local_need_a_length_that_fits(self):
        def problems(length):
            return O.model_ir_problems(
                'define void @k(ptr %0, i64 %n) section "tutorial_kernels" {\n'
                "  %2 = alloca [16 x i8], align 16\n"
                f"  call void @llvm.memset.p0.i64(ptr %2, i8 65, i64 {length}, i1 false)\n"
                "  ret void\n}\n")
        self.assertEqual(problems("16"), [])
        self.assertNotEqual(problems("17"), [])   # past its end
        self.assertNotEqual(problems("%n"), [])   # a length set at run time

    def test_a_stored_constant_expression_has_its_type_s_width(self):
        def problems(offset):
            return O.model_ir_problems(
                '@g = global i8 0\n'
                'define void @k(ptr %0) section "tutorial_kernels" {\n'
                "  %2 = alloca i64, align 8\n"
                f"  %3 = getelementptr inbounds i8, ptr %2, i64 {offset}\n"
                "  store i64 ptrtoint (ptr @g to i64), ptr %3, align 1\n  ret void\n}\n")
        self.assertEqual(problems(0), [])
        self.assertNotEqual(problems(7), [])      # 8 bytes at 7 of an 8-byte local

    def test_an_access_must_fit_inside_its_local(self):
        def problems(offset):
            return O.model_ir_problems(
                'define void @k(ptr %0) section "tutorial_kernels" {\n'
                "  %2 = alloca [4 x x86_fp80], align 16\n"
                f"  %3 = getelementptr inbounds i8, ptr %2, i64 {offset}\n"
                "  %4 = load volatile x86_fp80, ptr %3, align 16\n  ret void\n}\n")
        self.assertEqual(problems(48), [])      # bytes 48..63 of 64
        self.assertNotEqual(problems(56), [])   # bytes 56..71: past its end

    def test_a_phi_arm_that_is_a_constant_expression_is_read_whole(self):
        ir = ('@g = global [4 x x86_fp80] zeroinitializer\n'
              'define void @k(ptr %0, i1 %c) section "tutorial_kernels" {\n'
              "  %a = alloca [4 x x86_fp80], align 16\n  br i1 %c, label %l, label %r\n"
              "l:\n  br label %m\nr:\n  br label %m\n"
              "m:\n  %p = phi ptr [ %a, %l ], [ getelementptr inbounds ([4 x x86_fp80], ptr @g, "
              "i64 0, i64 1), %r ]\n  %v = load volatile x86_fp80, ptr %p, align 16\n"
              "  ret void\n}\n")
        self.assertNotEqual(O.model_ir_problems(ir), [])

    @unittest.skipUnless(CLANG, "needs clang++")
    def test_locals_holding_pointers_pass(self):
        """A struct with a pointer in it, passed by value (clang before 15 types its pointers:
        float*), is a local of known size."""
        self.assertEqual(self.problems(
            "struct View { const float* p; int ld; int pad[6]; };\n"
            "__attribute__((noinline)) float at(View v, int i) { return v.p[i * v.ld]; }\n"
            "__global__ void k(const float* in, float* out, int i) {\n"
            "  View v{in, i, {}};\n  out[i] = at(v, i);\n}\n"), [])

    def test_offsets_are_laid_out_as_x86_64_does(self):
        f = O.parse_ir("%struct.S = type { i8, double, [3 x float] }\n"
                       "define void @g() {\n  ret void\n}\n")["g"]
        self.assertEqual(O._type_layout(f, "%struct.S"), (32, 8))
        self.assertEqual(O._type_layout(f, "x86_fp80"), (16, 16))
        self.assertEqual(O._type_layout(f, "<{ i8, double }>"), (9, 1))
        self.assertEqual(O._type_layout(f, "{ i8, <8 x float> }"), (64, 32))
        self.assertEqual(O._type_layout(f, "float*"), (8, 8))
        self.assertEqual(O._gep_offset(f, ["%struct.S", "ptr %p", "i64 1", "i32 2", "i64 1"]),
                         32 + 16 + 4)
        self.assertIsNone(O._gep_offset(f, ["%struct.S", "ptr %p", "i64 %i"]))

    @unittest.skipUnless(CLANG, "needs clang++")
    def test_a_helper_the_kernel_calls_is_checked_too(self):
        self.assertNotEqual(self.problems(
            "__attribute__((noinline)) void copy3(float* o, const float* i) {\n"
            "  struct Tri { float a, b, c; };\n"
            "  *reinterpret_cast<Tri*>(o) = *reinterpret_cast<const Tri*>(i);\n}\n"
            "__global__ void k(const float* in, float* out) { copy3(out, in); }\n"), [])

    @unittest.skipUnless(CLANG, "needs clang++")
    def test_the_hooks_switched_off_are_refused(self):
        self.assertNotEqual(self.problems(
            '__attribute__((no_sanitize("coverage"), noinline)) void put(float* o, float v) { *o = v; }\n'
            "__global__ void k(const float* in, float* out) { put(out, in[0]); }\n"), [])
        # a function whose symbol starts with __sanitizer_ gets no hooks from clang
        self.assertNotEqual(self.problems(
            'extern "C" __attribute__((noinline)) void __sanitizer_put(float* o, float v) { *o = v; }\n'
            "__global__ void k(const float* in, float* out) { __sanitizer_put(out, in[0]); }\n"), [])

    def test_no_kernel_at_all_is_refused(self):
        self.assertNotEqual(O.model_ir_problems("define void @f() {\n  ret void\n}\n"), [])

    def test_opaque_pointers_are_read_too(self):
        ir = ('define void @k(ptr %0, ptr %1) section "tutorial_kernels" {\n'
              "  %3 = getelementptr inbounds float, ptr %0, i64 4\n"
              "  call void @__sanitizer_cov_load4(ptr %3)\n"
              "  %4 = load float, ptr %3, align 4\n"
              "  %5 = load x86_fp80, ptr %0, align 16\n"
              "  call void @__sanitizer_cov_store4(ptr %1)\n"
              "  store float %4, ptr %1, align 4\n"
              "  ret void\n}\n")
        problems = O.model_ir_problems(ir)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("x86_fp80", problems[0])


class SymbolTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def problems(self, code):
        src, obj = os.path.join(self.dir, "k.cpp"), os.path.join(self.dir, "k.o")
        with open(src, "w") as f:
            f.write(code)
        subprocess.run([GXX, "-std=c++17", "-O2", "-c", src, "-o", obj], check=True)
        return O.undefined_symbol_problems(obj)

    @unittest.skipUnless(GXX, "needs g++")
    def test_a_launcher_that_only_launches_passes(self):
        self.assertEqual(self.problems(
            "#include <cmath>\n#include <stdexcept>\n#include <string>\n"
            "extern \"C\" int cudaGetLastError();\n"
            "namespace tutorial { void validate_launch(int, int); }\n"
            "float f(int n) {\n"
            "  if (n < 1) throw std::invalid_argument(\"bad n \" + std::to_string(n));\n"
            "  tutorial::validate_launch(n, n);\n"
            "  return std::sqrt(float(n)) + float(cudaGetLastError());\n}\n"), [])

    @unittest.skipUnless(GXX, "needs g++")
    def test_host_routes_to_device_data_are_refused(self):
        for what, code in {
            "cudaMemcpy": 'extern "C" int cudaMemcpy(void*, const void*, unsigned long, int);\n'
                          "int f(float* d, float* h) { return cudaMemcpy(h, d, 4, 2); }",
            "cudaMemsetAsync": 'extern "C" int cudaMemsetAsync(void*, int, unsigned long, void*);\n'
                               "int f(float* d) { return cudaMemsetAsync(d, 0, 4, 0); }",
            "cudaHostRegister": 'extern "C" int cudaHostRegister(void*, unsigned long, unsigned);\n'
                                "int f(float* h) { return cudaHostRegister(h, 4, 0); }",
            "cudaMallocManaged": 'extern "C" int cudaMallocManaged(void**, unsigned long, unsigned);\n'
                                 "int f(void** p) { return cudaMallocManaged(p, 4, 1); }",
            "cudaLaunchHostFunc": 'extern "C" int cudaLaunchHostFunc(void*, void (*)(void*), void*);\n'
                                  "int f(void (*g)(void*)) { return cudaLaunchHostFunc(0, g, 0); }",
            "cublasSgemm": 'extern "C" int cublasSgemm_v2(void*);\nint f(void* h) { return cublasSgemm_v2(h); }',
            "a harness copy": "namespace tutorial { void copy_to_host(void*, const void*, unsigned long); }\n"
                              "void f(void* h, const void* d) { tutorial::copy_to_host(h, d, 4); }",
            "a thread": "#include <thread>\nvoid f() { std::thread([] {}).join(); }",
            "dlsym": "#include <dlfcn.h>\nvoid* f() { return dlsym(RTLD_DEFAULT, \"cudaMemcpy\"); }",
            "mprotect": "#include <sys/mman.h>\nint f(void* p) { return mprotect(p, 4096, 3); }",
            "a signal handler": "#include <csignal>\nvoid f(void (*h)(int)) { std::signal(SIGSEGV, h); }",
            "/proc/self/mem": "#include <fstream>\nvoid f(char* h) { std::ifstream(\"/proc/self/mem\").read(h, 4); }",
            "syscall": "#include <unistd.h>\nlong f() { return syscall(10, 0, 0, 0); }",
        }.items():
            with self.subTest(route=what):
                self.assertNotEqual(self.problems(code), [])


class MacroTests(unittest.TestCase):
    def problems(self, text):
        return O.kernel_source_problems({"exercises/x/k.cuh": text.encode()})

    def test_tests_of_the_build_are_refused_in_any_spelling(self):
        for text in ("#ifdef TUTORIAL_CPU_BACKEND\nx\n#endif\n",
                     "#if defined(TUTORIAL_CPU_ANALYZE)\n#endif\n",
                     "#  if   defined ( __CUDACC__ )\n#endif\n",
                     "#ifndef __CUDA_ARCH__\n#endif\n",
                     "%:ifdef __clang__\n%:endif\n",
                     "#if __has_include(<cuda_runtime.h>)\n#endif\n",
                     "#if __has_include(\"common/cpu_backend/scheduler.hpp\")\n#endif\n",
                     "#define ON_CPU TUTORIAL_CPU_BACKEND\n#if ON_CPU\n#endif\n",
                     "constexpr int compiler = __GNUC__;\n",
                     "#if def\\\nined(__NVCC__)\n#endif\n"):
            with self.subTest(text=text):
                self.assertNotEqual(self.problems(text), [])

    def test_inline_assembly_is_refused(self):
        for text in ('asm volatile("syscall" : "=a"(r) : "a"(10L));',
                     '__asm__("mov.u32 %0, %%laneid;" : "=r"(lane));', "__asm (\"nop\");"):
            with self.subTest(text=text):
                self.assertNotEqual(self.problems(text), [])

    def test_ordinary_code_and_comments_pass(self):
        self.assertEqual(self.problems(
            "#pragma once\n// __CUDA_ARCH__ is not tested here, TUTORIAL_CPU_BACKEND neither\n"
            "/* #ifdef __clang__ */\n#include <vector>\n#define TILE 32\n"
            "#define AT(r, c) ((r) * TILE + (c))\n#pragma unroll 4\nint x[AT(2, 3)];\n"), [])
        self.assertEqual(self.problems("#ifndef MY_KERNEL_H\n#define MY_KERNEL_H\nint x;\n"
                                       "#endif\n"), [])  # a classic include guard

    def test_an_include_names_a_header_not_any_file(self):
        for text in ('#include "/autograder/submission_metadata.json"\n',
                     "#include <../../etc/hostname>\n", '#  include "common/../../x.h"\n'):
            with self.subTest(text=text):
                problems = O.include_problems({"k.cuh": text.encode()})
                self.assertEqual(len(problems), 1, problems)
                self.assertIn("k.cuh:1: #include", problems[0])
        self.assertEqual(O.include_problems({"k.cuh": b'#include "common/launch.cuh"\n'
                                                     b"#include <vector>\n"}), [])

    def test_the_preprocessor_may_not_make_another_program_per_build(self):
        for text, says in (("#define TILE 32\n#if TILE > 16\nint x;\n#endif\n", "k.cuh:2: #if"),
                           ("#define G(a, b) a##b\nG(as, m)(\"nop\");\n", "k.cuh:1: #define"),
                           ("#define S(x) #x\nconst char* s = S(y);\n", "pastes (##) or stringizes"),
                           ("#define V(x) x %:%: 1\n", "pastes"),
                           ("#undef TILE\n", "k.cuh:1: #undef"),
                           ("#define H <stdio.h>\n#include H\n", "must name its file"),

                           ("#pragma push_macro(\"TILE\")\n", "only #pragma unroll"),
                           ('_Pragma("clang attribute push")\n', "_Pragma"),
                           ("int line = __LINE__, counter = __COUNTER__;\n", "__LINE__"),
                           ("const char* f = __FILE__;\n", "__FILE__"),
                           ("int v = __GXX_ABI_VERSION;\n", "__GXX_ABI_VERSION"),
                           ("#ifndef G\n#define G\n#endif\n#ifdef X\n#endif\n", "#ifdef")):
            with self.subTest(text=text):
                problems = "\n".join(self.problems(text))
                self.assertIn(says, problems)


class PreprocessedTests(unittest.TestCase):
    """What each build compiled, after the preprocessor: the student's lines only."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.mine = os.path.join(self.dir, "src", "k.cuh")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def scan(self, student_lines):
        ii = os.path.join(self.dir, "entry.ii")
        with open(ii, "w") as f:
            f.write('# 1 "/usr/include/sys/cdefs.h" 1 3\nextern int x __asm__("y");\n'
                    f'# 7 "{self.mine}" 1\n{student_lines}\n')
        return O.preprocessed_problems(ii, [os.path.join(self.dir, "src")])

    def test_spellings_show_after_the_preprocessor(self):
        self.assertEqual(self.scan("int x;\nasm volatile(\"syscall\");"),
                         ["k.cuh:8: asm, syscall"])
        self.assertEqual(self.scan('const char* s = "TUTORIAL_CPU_BACKEND";'),
                         ["k.cuh:7: TUTORIAL_CPU_BACKEND"])
        self.assertEqual(self.scan("int y = 1;\n#pragma unroll\nfor (;;) {}"), [])

    def test_code_before_or_after_main_is_found(self):
        # A pointer in the section the loader runs before main, and the attribute spellings.
        self.assertEqual(self.scan('static void (*h)() __attribute__((section(".init_array"), '
                                   'used)) = 0;'), ["k.cuh:7: init_array"])
        self.assertEqual(self.scan("__attribute__((constructor)) void f() {}\n"
                                   "[[gnu::destructor]] void g() {}"),
                         ["k.cuh:7: constructor", "k.cuh:8: destructor"])
        self.assertEqual(self.scan("int ctor_count = 0; int sections = 2;"), [])

    def test_the_time_stamp_counter_is_found(self):
        self.assertEqual(self.scan("unsigned long long t = __rdtsc();"), ["k.cuh:7: __rdtsc"])
        self.assertEqual(self.scan("auto t = __builtin_readcyclecounter();"),
                         ["k.cuh:7: __builtin_readcyclecounter"])

    def test_macros_that_paste_are_found_through_others(self):
        macros = os.path.join(self.dir, "macros.h")
        with open(macros, "w") as f:
            f.write("#define __CONCAT(x, y) x ## y\n#define __STRING(x) #x\n"
                    "#define CAT2(a, b) __CONCAT(a, b)\n#define PLAIN(a) (a + 1)\n#define TILE 32\n")
        self.assertEqual(O.pasting_macros(macros), {"__CONCAT", "__STRING", "CAT2"})
        self.assertEqual(O.pasting_macro_problems(
            {"k.cuh": b"int v = CAT2(__GX, X_ABI_VERSION);\nint w = PLAIN(TILE);\n"}, macros),
            ["k.cuh:1: CAT2"])


@unittest.skipUnless(GXX and shutil.which("nm"), "needs g++ and nm")
class DefinitionTests(unittest.TestCase):
    """What a student's object defines (defined_symbol_problems), on objects g++ compiles."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def defined(self, code):
        src, obj = os.path.join(self.dir, "k.cpp"), os.path.join(self.dir, "k.o")
        with open(src, "w") as f:
            f.write(code)
        subprocess.run([GXX, "-std=c++17", "-O2", "-c", src, "-o", obj], check=True)
        exports = set()
        for lib in ("libc.so.6", "libstdc++.so.6"):
            path = O._library_paths().get(lib)
            if path:
                exports |= {p[0].split("@")[0] for p in O._nm(path, "-D", "--defined-only")}
        return O.defined_symbol_problems([obj], {"_ZN8tutorial12launch_countEv": True}, exports)

    def test_a_students_own_names_pass(self):
        self.assertEqual(self.defined(
            "#include <string>\n#include <vector>\n#include <algorithm>\n"
            "namespace ex { int table[4] = {1, 2, 3, 4};\n"
            "template <int T> int twice(int x) { return T * x; }\n"
            "inline std::string name(int n) { return \"n\" + std::to_string(n); }\n"
            "void sort(std::vector<float>& v) { std::sort(v.begin(), v.end()); } }\n"
            "int global_counter = 0;\n"
            "int use() { return ex::twice<3>(ex::table[0]) + int(ex::name(2).size()); }\n"), [])
        # inline functions of the standard headers that the C++ library exports too (weak
        # here): allowed, the grader makes them the student's own (private_copies)
        code = ("#include <sstream>\n#include <regex>\n#include <locale>\nint f(int x) {\n"
                "  std::ostringstream os; os << x; std::regex re(\"[0-9]+\");\n"
                "  return int(os.str().size()) + std::regex_match(os.str(), re); }\n")
        self.assertEqual(self.defined(code), [])
        obj = os.path.join(self.dir, "k.o")
        exports = {p[0].split("@")[0] for p in O._nm(O._library_paths()["libstdc++.so.6"], "-D",
                                                       "--defined-only")}
        copies = O.private_copies([obj], {}, exports)
        self.assertTrue(copies, "expected weak copies of exported standard-library functions")
        O.localize(obj, copies[obj])
        self.assertEqual(O.private_copies([obj], {}, exports), {})

    def test_library_names_are_refused_in_every_spelling(self):
        for code, name in (
                ('#include <cstddef>\nextern "C" void* memmove(void* d, const void*, size_t) { return d; }', "memmove"),
                ('extern "C" long write(int, const void*, unsigned long n) { return long(n); }', "write"),
                ('extern "C" int my_helper() { return 1; }', "my_helper"),
                ('#include <ostream>\nextern "C" std::ostream& _ZSt16__ostream_insertIcSt11char_'
                 'traitsIcEERSt13basic_ostreamIT_T0_ES6_PKS3_l(std::ostream& o, const char*, long)'
                 ' { return o; }', "_ZSt16__ostream_insert"),
                ('#include <cstdlib>\n#include <new>\nvoid* operator new(std::size_t n) { return std::malloc(n); }', "_Znwm"),
                ('namespace std { int hostile_in_std = 1; }', "hostile_in_std"),
                ('namespace tutorial { long launch_count() { return 99; } }', "launch_count"),
                ('extern "C" void* r() { return nullptr; }\nint f() __attribute__((ifunc("r")));', "_Z1fv"),
                ('extern "C" { char __start_tutorial_shared[1]; }', "__start_tutorial_shared")):
            with self.subTest(name=name):
                problems = self.defined(code)
                self.assertTrue(any(name in n for n, _ in problems), problems)

    def test_the_scope_of_a_mangled_name(self):
        for name, scope in (("_ZNSt6vectorIfSaIfEE9push_backERKf", "std"),
                            ("_ZNKSt5ctypeIcE8do_widenEc", "std"), ("_ZSt4cout", "std"),
                            ("_ZTVN8tutorial16UnsupportedShapeE", "tutorial"),
                            ("_ZGVZN5ex06a1fEvE4tile", "ex06a"), ("_Znwm", "operator new/delete"),
                            ("_ZdlPvm", "operator new/delete"), ("_Z4workii", "::work"),
                            ("_ZN8exercise7entriesEv", "exercise"), ("memmove", None)):
            self.assertEqual(O.mangled_scope(name), scope, name)

    def test_a_refusal_names_the_students_line(self):
        files = {"k.cuh": b"// memmove in a comment\n#include <cstring>\n"
                          b"extern \"C\" void* memmove(void*, const void*, size_t);\n"}
        self.assertEqual(O.located(["memmove", "__once_proxy", "pthread_once"], files),
                         ["k.cuh:3: memmove: extern \"C\" void* memmove(void*, const void*, "
                          "size_t);", "and 2 name(s) the library code it calls needs (first: "
                                      "pthread_once)"])

    @unittest.skipUnless(shutil.which("objdump"), "needs objdump")
    def test_a_system_call_instruction_is_found_however_spelled(self):
        src, obj = os.path.join(self.dir, "k.cpp"), os.path.join(self.dir, "k.o")
        with open(src, "w") as f:
            f.write("#include <sys/cdefs.h>\nlong f(long n) { long r; __CONCAT(as, m) volatile("
                    "\"syscall\" : \"=a\"(r) : \"a\"(n) : \"rcx\", \"r11\"); return r; }\n")
        subprocess.run([GXX, "-O2", "-c", src, "-o", obj], check=True)
        self.assertEqual(len(O.syscall_instruction_problems([obj])), 1)
        with open(src, "w") as f:
            f.write("long f(long n) { return n * 3; }\n")
        subprocess.run([GXX, "-O2", "-c", src, "-o", obj], check=True)
        self.assertEqual(O.syscall_instruction_problems([obj]), [])


@unittest.skipUnless(GXX and shutil.which("cmake"), "needs g++ and cmake")
class LinkOrderTests(unittest.TestCase):
    """runner.cmake links the runner library before the student's object: where both hold the
    same inline function (a COMDAT group), the library's copy is the one the program runs."""

    def test_the_runner_librarys_inline_functions_win(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        runner_cmake = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))), "support", "runner.cmake")
        files = {
            "lib.cpp": '#include <cstdio>\ninline const char* who() { return "runner"; }\n'
                       "__attribute__((noinline)) const char* call_who() { return who(); }\n"
                       'int main() { std::puts(call_who()); }\n',
            "student.cpp": '__attribute__((noinline)) inline const char* who() { return "student"; }\n'
                           "const char* use() { return who(); }\n",
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(t CXX)\n"
                              f'include("{runner_cmake}")\n'
                              "add_library(runner STATIC lib.cpp)\n"
                              "add_executable(prog student.cpp)\n"
                              "exercise_link_whole(prog runner)\n"}
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        env = {k: v for k, v in os.environ.items() if "LAUNCHER" not in k}
        for argv in (["cmake", "-S", d, "-B", os.path.join(d, "b")],
                     ["cmake", "--build", os.path.join(d, "b")]):
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
        out = subprocess.run([os.path.join(d, "b", "prog")], stdout=subprocess.PIPE, check=True)
        self.assertEqual(out.stdout.decode().strip(), "runner")


if __name__ == "__main__":
    unittest.main()
