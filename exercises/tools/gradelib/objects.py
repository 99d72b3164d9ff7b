"""What a kernel exercise's compiled student code may contain (exercises/INSTRUCTORS.md, "The answer
must come from a kernel" and "Access patterns are counted").

A student's translation unit (the exercise's entry file and the student's files) is compiled
three ways: nvcc for a GPU, g++ for the CPU backend, clang with the memory model's hooks. The
checks here read what the compilers produced, not the source text, so that no spelling gets
around them:

* undefined_symbol_problems: every symbol the object needs from elsewhere is on an allow-list
  of what kernels and their launchers legitimately call (the launch, the kit's checks, the C++
  runtime, strings and exceptions, math). Nothing on it moves data between host and device
  memory, starts a thread, opens a file, maps or protects memory or handles a signal: on a GPU
  and on the CPU backend alike, device memory is then out of the host's reach, and the answer
  can only come from a kernel. The list was drawn from what the stubs and the instructor
  solutions of every kernel exercise reference (nm, all three builds); the self-test checks
  that they all still pass it.
* kernel_source_problems (the student's files): no test of the macros that tell the builds
  apart (TUTORIAL_CPU_BACKEND, __CUDACC__, __CUDA_ARCH__, __clang__, __has_include, ...): the
  file must be the same program for every build, or the CPU backend grades another kernel
  than the GPU runs. No inline assembly either: a system call in it needs no symbol.
* model_ir_problems (the memory model's LLVM IR, after the hooks were inserted): every load and
  store of every function a __global__ function reaches has its hook, or the runner is
  refused: no memcpy-like intrinsic, library copy (wmemcpy, mempcpy, bcopy, std::copy's
  memmove ...), access of a width the hooks lack (long double, _BitInt(96), a struct copied
  whole), atomic, inline assembly or call through a pointer there.
"""

import os
import re
import subprocess

# ---------------------------------------------------------------------------------------------
# Symbols
# ---------------------------------------------------------------------------------------------

# Demangled names (c++filt), each a full match. Grouped by why each is harmless.
ALLOWED_UNDEFINED = [
    # nvcc's registration and launch of kernels; the runtime calls a launcher may make.
    r"__cudaRegisterFatBinary(End)?", r"__cudaUnregisterFatBinary", r"__cudaRegisterFunction",
    r"__cudaRegisterVar", r"__cudaPushCallConfiguration", r"__cudaPopCallConfiguration",
    r"__cudaLaunchKernel(_ptsz)?", r"__cudaGetKernel", r"cudaLaunchKernel(_ptsz)?",
    r"cudaGetLastError", r"cudaPeekAtLastError", r"cudaGetErrorString", r"cudaGetErrorName",
    r"cudaDeviceSynchronize", r"cudaFuncSetAttribute", r"cudaMalloc", r"cudaFree",
    r"atexit", r"__dso_handle", r"_GLOBAL_OFFSET_TABLE_",
    # The CPU backend: its grid runner, device functions, built-in variables and the memory
    # model's hooks (the CPU backend's cuda_runtime.h and cuda_shim.hpp).
    r"tutorial::cpu::(run_grid|syncthreads|dynamic_shared_memory|pipeline_memcpy_async|"
    r"pipeline_commit|pipeline_wait_prior|device_error|kernel_pointer_argument)\(.*\)",
    r"tutorial::cpu::builtins", r"__sanitizer_cov_(load|store)(1|2|4|8|16)",
    r"tutorial_analyze_async_copy",
    # The kit's interface: tutorial::launch's checks, CUDA_CHECK, the stubs' todo().
    r"tutorial::(validate_launch|require_fit|ensure_dynamic_smem|allow_dynamic_smem|"
    r"record_launch|throw_cuda_error|check_gemm_shape|gemm_shape_string(\[abi:cxx11\])?)\(.*\)",
    r"(typeinfo|typeinfo name|vtable) for tutorial::(UnsupportedShape|KernelDoesNotFit|"
    r"CudaError)",
    r"tutorial::(UnsupportedShape|KernelDoesNotFit|CudaError)::.*",
    r"exercise::todo\(.*\)", r"exercise::NotImplemented::.*",
    r"(typeinfo|typeinfo name|vtable) for exercise::NotImplemented",
    # The C++ runtime: allocation, exceptions, static initialization, the stack protector.
    r"operator (new|delete)(\[\])?\(.*\)", r"malloc", r"calloc", r"realloc", r"free",
    r"__cxa_(allocate|free)_exception", r"__cxa_throw",
    r"__cxa_rethrow", r"__cxa_(begin|end)_catch", r"__cxa_guard_(acquire|release|abort)",
    r"__cxa_atexit", r"__cxa_pure_virtual", r"__cxa_call_unexpected", r"__gxx_personality_v0",
    r"_Unwind_Resume", r"std::terminate\(\)", r"__stack_chk_fail", r"__assert_fail",
    r"vtable for __cxxabiv1::__(si_|vmi_)?class_type_info",
    # Strings, numbers as text, the standard exceptions.
    r"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::.*",
    r"std::__cxx11::to_string\(.*\)", r"std::__throw_\w+\(.*\)",
    r"std::(__cxx11::)?(logic_error|runtime_error|invalid_argument|out_of_range|length_error|"
    r"domain_error|range_error|overflow_error|underflow_error|exception|bad_alloc)::.*",
    r"(typeinfo|typeinfo name|vtable) for std::(logic_error|runtime_error|invalid_argument|"
    r"out_of_range|length_error|domain_error|range_error|overflow_error|underflow_error|"
    r"exception|bad_alloc)",
    r"(str|mem)(len|cmp|chr)", r"memcpy", r"memmove", r"memset", r"(v?sn)?printf", r"puts",
    r"putchar", r"strto(l|ul|ll|ull|f|d)", r"__isoc\d+_strto\w+",
    # Text out: std::cout and std::cerr, string streams (no file streams, no input).
    r"std::(cout|cerr|clog)", r"std::ios_base::Init::.*", r"std::ctype<char>::.*",
    r"std::basic_ostream<char, std::char_traits<char> >::.*",
    r"std::basic_ostream<char, std::char_traits<char> >& std::.*",
    r"std::__cxx11::basic_(o?stringstream|stringbuf)<char, std::char_traits<char>, "
    r"std::allocator<char> >::.*",
    r"(VTT|vtable|typeinfo) for std::__cxx11::basic_(o?stringstream|stringbuf)<.*",
    r"std::(locale|ios_base)::.*", r"std::basic_ios<char, std::char_traits<char> >::.*",
    # Math.
    r"(acos|asin|atan2?|cbrt|ceil|copysign|cosh?|erfc?|exp(2|10|m1)?|fabs|fdim|floor|fma|fmax|"
    r"fmin|fmod|hypot|ilogb|ldexp|lgamma|llrint|llround|log(10|1p|2|b)?|lrint|lround|"
    r"nearbyint|nextafter|pow|remainder|rint|round|scalbl?n|sinh?|sqrt|tanh?|tgamma|trunc)"
    r"[fl]?",
]
_ALLOWED = re.compile("|".join(f"(?:{p})" for p in ALLOWED_UNDEFINED))


def _nm(obj, *flags):
    try:
        proc = subprocess.run(["nm", "-P", *flags, obj], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        raise OSError(f"cannot list the object's symbols (nm): {e}")
    if proc.returncode != 0:
        raise OSError("cannot list the object's symbols (nm): " +
                      proc.stderr.decode("utf-8", "replace")[:200])
    return [line.split() for line in proc.stdout.decode("utf-8", "replace").splitlines()
            if line.split()]


def demangle(names):
    """Demangled names (c++filt, from binutils as nm), in order; the names as they were where
    c++filt is missing."""
    if not names:
        return []
    try:
        proc = subprocess.run(["c++filt"], input="\n".join(names).encode(),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
        out = proc.stdout.decode("utf-8", "replace").splitlines()
        if proc.returncode == 0 and len(out) == len(names):
            return out
    except (OSError, subprocess.SubprocessError):
        pass
    return list(names)


def undefined_symbols(obj):
    """The object's undefined symbols, demangled, sorted."""
    names = sorted({parts[0] for parts in _nm(obj, "-u")})
    return sorted(set(demangle(names)))


def undefined_symbol_problems(obj):
    """What the object calls or uses that a kernel exercise may not (empty: nothing)."""
    try:
        names = undefined_symbols(obj)
    except OSError as e:
        return [str(e)]
    return [f"{name}: not something a kernel or its launcher may use (the answer must come "
            f"from a kernel: no copies between host and device, threads, files, signals, "
            f"memory mappings, libraries beyond the exercise's interface)"
            for name in names if not _ALLOWED.fullmatch(name)]


# ---------------------------------------------------------------------------------------------
# The source: no test of what tells the builds apart
# ---------------------------------------------------------------------------------------------

# Macros (and preprocessor operators) whose value differs between nvcc, the CPU backend's g++
# and the memory model's clang: a file that names one can be another program in each build.
BACKEND_MACROS = re.compile(
    r"(?<![A-Za-z0-9_])(TUTORIAL_\w+|__CUDACC\w*|__CUDA_ARCH\w*|__CUDA\w*__|__NVCC__|"
    r"__NVCOMPILER\w*|__NVPTX\w*|CUDART_VERSION|CUDA_VERSION|__CUDA_RUNTIME_H__|__clang\w*|"
    r"__GNUC\w*|__GNUG__|__llvm__|__INTEL_\w+|__VERSION__|__has_include\w*|__has_feature|"
    r"__has_extension|__has_builtin|__has_attribute|__has_cpp_attribute|"
    r"__has_declspec_attribute|__is_identifier|__SANITIZE_\w+|__OPTIMIZE\w*|__FAST_MATH__)"
    r"(?![A-Za-z0-9_])")


# Inline assembly: a system call in it would do what the symbol check refuses (open device
# memory with mprotect, say), and the CPU backend cannot run PTX anyway.
INLINE_ASSEMBLY = re.compile(r"(?<![A-Za-z0-9_])(asm|__asm|__asm__)(?![A-Za-z0-9_])")


def kernel_source_problems(files):
    """{path: bytes} of a submission's files of one kernel exercise -> why they cannot be graded
    (empty: they can). Comments are not read."""
    from .toolchain import _strip_comments  # the memory model's scan strips them the same way
    problems = []
    for path, data in sorted(files.items()):
        text = _strip_comments(data.decode("utf-8", "replace"))
        found = sorted(set(BACKEND_MACROS.findall(text)))
        if found:
            problems.append(f"{os.path.basename(path)}: {', '.join(found[:5])}: a file may not "
                            f"test which build compiles it (nvcc, the CPU backend, the memory "
                            f"model); every build must grade the same kernel")
        if INLINE_ASSEMBLY.search(text):
            problems.append(f"{os.path.basename(path)}: inline assembly (asm): not in a kernel "
                            f"exercise (the CPU backend cannot run it, and the grader cannot "
                            f"check what it does)")
    return problems


# ---------------------------------------------------------------------------------------------
# The memory model's IR
# ---------------------------------------------------------------------------------------------

KERNEL_SECTION = "tutorial_kernels"   # cuda_shim.hpp: every __global__ function of the build
_HOOK = re.compile(r"^__sanitizer_cov_(load|store)(1|2|4|8|16)$")
# Functions a kernel may call that the IR does not define, besides the hooks.
ALLOWED_KERNEL_CALLS = re.compile(
    r"^(_ZN8tutorial3cpu\d+(syncthreads|dynamic_shared_memory|pipeline_memcpy_async|"
    r"pipeline_commit|pipeline_wait_prior|device_error)E\w*|tutorial_analyze_async_copy|"
    r"__assert_fail|_Unwind_Resume|__cxa_begin_catch|__cxa_end_catch|_ZSt9terminatev|"
    r"(acos|asin|atan2?|cbrt|ceil|copysign|cosh?|erfc?|exp(2|10|m1)?|fabs|fdim|floor|fma|fmax|"
    r"fmin|fmod|hypot|ilogb|ldexp|lgamma|llrint|llround|log(10|1p|2|b)?|lrint|lround|nearbyint|"
    r"nextafter|pow|remainder|rint|round|scalbl?n|sinh?|sqrt|tanh?|tgamma|trunc)[fl]?)$")
# LLVM intrinsics that read or write no memory a kernel could name.
ALLOWED_INTRINSICS = re.compile(
    r"^llvm\.(dbg\.\w+|lifetime\.(start|end)|assume|expect|experimental\.noalias\.scope\.decl|"
    r"fmuladd|fma|fabs|sqrt|exp2?|exp10|log(2|10)?|sin|cos|pow|powi|floor|ceil|trunc|round|"
    r"roundeven|rint|nearbyint|copysign|minnum|maxnum|minimum|maximum|l?lround|l?lrint|"
    r"[su](min|max)|abs|ctlz|cttz|ctpop|bswap|bitreverse|fsh[lr]|[su](add|sub|mul)\.with\.overflow|"
    r"[su](add|sub|shl)\.sat|is\.fpclass|trap|debugtrap|stacksave|stackrestore|prefetch|"
    r"invariant\.(start|end)|threadlocal\.address|vector\.reduce\.\w+|umul\.fix\w*|ptrmask)"
    r"(\.|$)")
_MEMORY_INTRINSIC = re.compile(r"^llvm\.(memcpy|memmove|memset)(\.inline)?\.")


def _split_top(text, sep=","):
    """Splits at `sep` outside brackets and quotes."""
    parts, depth, quote, start = [], 0, False, 0
    for i, c in enumerate(text):
        if quote:
            if c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _value(operand):
    """The value of '<type> <value>' (the last top-level token)."""
    tokens = _split_top(operand.strip(), " ")
    tokens = [t for t in tokens if t]
    return tokens[-1] if tokens else ""


_GLOBAL_IN = re.compile(r'@("(?:[^"\\]|\\.)*"|[-\w.$]+)')
_NAME = re.compile(r'^[%@]("(?:[^"\\]|\\.)*"|[-\w.$]+)$')


_METADATA = re.compile(r",\s*![A-Za-z][\w.]*\s+!(\d+|\{[^{}]*\})")


class _Function:
    def __init__(self, name, header):
        self.name = name
        self.header = header
        self.lines = []     # instructions, in order
        self.defs = {}      # %name -> instruction text (after "=")


def parse_ir(text):
    """{name: _Function} of the functions the module defines."""
    functions, current = {}, None
    for raw in text.splitlines():
        line = _METADATA.sub("", raw).rstrip()
        if current is None:
            if line.startswith("define "):
                m = re.search(r'@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(', line)
                if m:
                    current = _Function(m.group(1).strip('"'), line)
            continue
        if line == "}":
            functions[current.name] = current
            current = None
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(";") or re.match(r"^[-\w.$\"]+:", stripped):
            continue
        stripped = re.sub(r"\s*;.*$", "", stripped) if '"' not in stripped else stripped
        current.lines.append(stripped)
        m = re.match(r'^%("(?:[^"\\]|\\.)*"|[-\w.$]+)\s*=\s*(.*)$', stripped)
        if m:
            current.defs["%" + m.group(1)] = m.group(2)
    return functions


def _strip_casts(f, value, seen=None):
    """A pointer value with bitcasts and address-space casts (instructions or constant
    expressions) taken off."""
    value = value.strip()
    for _ in range(64):
        m = re.match(r"^(?:bitcast|addrspacecast)\s*\((.*)\s+to\s+[^()]*\)$", value)
        if m:
            value = _value(m.group(1))
            continue
        d = f.defs.get(value)
        if d is not None:
            m = re.match(r"^(?:bitcast|addrspacecast)\s+(.*)\s+to\s+.*$", d)
            if m:
                value = _value(m.group(1))
                continue
        break
    return value


def _is_local(f, value, seen=None):
    """Whether a pointer value is (an address inside) an alloca of this function: the kernel's
    own stack, which is not GPU memory."""
    seen = set() if seen is None else seen
    value = _strip_casts(f, value)
    if value in seen:
        return True
    seen.add(value)
    d = f.defs.get(value)
    if d is None:
        return False
    op = d.split(None, 1)[0] if d else ""
    if op == "alloca":
        return True
    if op == "getelementptr":
        operands = _split_top(re.sub(r"^getelementptr\s+(inbounds\s+)?", "", d))
        return len(operands) >= 2 and _is_local(f, _value(operands[1]), seen)
    if op in ("bitcast", "addrspacecast"):
        return _is_local(f, _value(re.sub(r"\s+to\s+.*$", "", d.split(None, 1)[1])), seen)
    if op == "phi":
        incoming = re.findall(r"\[\s*([^,\]]+),", d)
        return bool(incoming) and all(_is_local(f, v.strip(), seen) for v in incoming)
    if op == "select":
        operands = _split_top(d[len("select"):])
        return len(operands) == 3 and all(_is_local(f, _value(o), seen) for o in operands[1:])
    return False


def _call_parts(inst):
    """(callee or None for an indirect call, 'asm' for inline assembly, argument list text) of
    a call/invoke/callbr instruction."""
    body = re.sub(r"^.*?\b(call|invoke|callbr)\b", "", inst, count=1)
    depth, quote = 0, False
    for i, c in enumerate(body):
        if quote:
            if c == '"':
                quote = False
            continue
        if c == '"':
            quote = True
        elif c in "[{<":
            depth += 1
        elif c in "]}>":
            depth -= 1
        elif c == "(" and depth == 0:
            before = body[:i].rstrip()
            if re.search(r"\basm\b", before) and before.endswith('"'):
                return "asm", None, body[i:]
            m = re.search(r'([%@](?:"(?:[^"\\]|\\.)*"|[-\w.$]+))$', before)
            if m or before.endswith(")"):
                # the argument list: up to its matching parenthesis
                j, d2 = i, 0
                for j in range(i, len(body)):
                    if body[j] == "(":
                        d2 += 1
                    elif body[j] == ")":
                        d2 -= 1
                        if d2 == 0:
                            break
                args = body[i + 1:j]
                if m:
                    callee = m.group(1)
                else:  # a constant expression: bitcast (... @f to ...)
                    inner = _GLOBAL_IN.findall(before)
                    callee = "@" + inner[-1] if inner else None
                    if callee is None:
                        return None, None, args
                if callee.startswith("%"):
                    return None, None, args
                return "call", callee[1:].strip('"'), args
            depth += 1  # a function type's parameter list: skip it
            continue
        elif c == ")":
            depth -= 1
    return None, None, ""


def model_ir_problems(ir_text):
    """Why the memory model cannot trust this module (empty: it can). `ir_text`: the LLVM IR
    of the student's translation unit after the hooks were inserted (clang -S -emit-llvm)."""
    functions = parse_ir(ir_text)
    roots = [f for f in functions.values() if re.search(rf'\bsection "{KERNEL_SECTION}"', f.header)]
    if not roots:
        return ["no __global__ function found in the memory model's build"]
    problems = []
    seen, todo = set(), [f.name for f in roots]

    def where(f):
        return demangle([f.name])[0]

    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        f = functions[name]
        previous = ""
        for inst in f.lines:
            body = re.sub(r'^%("(?:[^"\\]|\\.)*"|[-\w.$]+)\s*=\s*', "", inst)
            op = body.split(None, 1)[0] if body else ""
            if op in ("load", "store"):
                rest = re.sub(r"^(load|store)\s+(atomic\s+)?(volatile\s+)?", "", body)
                operands = _split_top(rest)
                pointer = _value(operands[1]) if len(operands) > 1 else ""
                kind = "load" if op == "load" else "store"
                hooked = False
                m = re.match(r"^(?:tail\s+)?call\s+void\s+@__sanitizer_cov_(load|store)\d+\((.*)\)$",
                             previous)
                if m and m.group(1) == kind:
                    hooked = _strip_casts(f, _value(m.group(2))) == _strip_casts(f, pointer)
                if not hooked and not _is_local(f, pointer):
                    problems.append(f"{where(f)}: a {kind} the memory model's hooks do not see "
                                    f"({body[:90]}): a width they lack (long double, _BitInt, a "
                                    f"struct or array copied whole) or hooks switched off")
            elif op in ("atomicrmw", "cmpxchg"):
                operands = _split_top(re.sub(r"^(atomicrmw|cmpxchg)\s+(weak\s+)?(volatile\s+)?"
                                             r"(\w+\s+)?", "", body))
                if not operands or not _is_local(f, _value(operands[0])):
                    problems.append(f"{where(f)}: an atomic access the hooks do not see")
            elif op == "va_arg":
                problems.append(f"{where(f)}: va_arg in code a kernel runs")
            elif re.match(r"^(tail\s+|musttail\s+|notail\s+)?(call|invoke|callbr)\b", body):
                kind, callee, args = _call_parts(body)
                if kind == "asm":
                    problems.append(f"{where(f)}: inline assembly in code a kernel runs")
                elif kind is None:
                    problems.append(f"{where(f)}: a call through a pointer in code a kernel "
                                    f"runs (the grader checks only the code it can see)")
                elif _MEMORY_INTRINSIC.match(callee):
                    operands = _split_top(args or "")
                    pointers = operands[:1] if "memset" in callee else operands[:2]
                    if not all(_is_local(f, _value(p)) for p in pointers):
                        problems.append(f"{where(f)}: a {callee.split('.')[1]} of memory (a "
                                        f"struct or array copied whole, std::copy ...): the "
                                        f"memory model's hooks do not see it")
                elif callee in functions:
                    todo.append(callee)
                elif callee.startswith("llvm."):
                    if not ALLOWED_INTRINSICS.match(callee):
                        problems.append(f"{where(f)}: the intrinsic {callee}, which the memory "
                                        f"model does not know")
                elif not _HOOK.match(callee) and not ALLOWED_KERNEL_CALLS.match(callee):
                    problems.append(f"{where(f)}: calls {demangle([callee])[0]}, which the "
                                    f"memory model's hooks do not see into")
                for arg in _split_top(args or ""):
                    if re.search(r"\bbyval\b", arg) and not _is_local(f, _value(arg)):
                        problems.append(f"{where(f)}: passes memory by value (byval), a copy "
                                        f"the hooks do not see")
            previous = body
    return sorted(set(problems))


def model_ir_file_problems(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return model_ir_problems(f.read())
    except OSError as e:
        return [f"cannot read the memory model's IR: {e}"]
