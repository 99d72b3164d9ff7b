"""What a student's compiled code may contain (exercises/INSTRUCTORS.md, "The answer must come
from a kernel", "What a student's file may define" and "Access patterns are counted").

A student's translation unit (the exercise's entry file and the student's files) is compiled
once for a host exercise and three ways for a kernel exercise: nvcc for a GPU, g++ for the CPU
backend, clang with the memory model's hooks. The checks here read what the compilers produced
(the objects, and the text each compiler compiled after the preprocessor), not only the source
text, so that no spelling gets around them:

* defined_symbol_problems (every exercise): a student's object may define its own names and
  the exercise's entry points, nothing that a library of the runner also defines: no function
  with C linkage (memmove, write, pthread_once ...), no strong definition in the namespaces of
  the standard library, the ABI or the kit (std::__ostream_insert, tutorial::launch_count ...),
  no global operator new or delete, no indirect function, and nothing that a shared library
  the runner loads exports. Such a definition would replace the library's for the whole
  runner, the runner's own code included (its copies of device memory, its result files).
  The runner libraries are linked before the student's object (runner.cmake), so that where
  both hold the same inline function or template instance, the runner's copy is the one kept.
* undefined_symbol_problems (kernel exercises): every symbol the object needs from elsewhere is
  on an allow-list of what kernels and their launchers legitimately call (the launch, the
  kit's checks, the C++ runtime, strings and exceptions, math). Nothing on it moves data
  between host and device memory, starts a thread, opens a file, maps or protects memory or
  handles a signal: on a GPU and on the CPU backend alike, device memory is then out of the
  host's reach, and the answer can only come from a kernel. The list was drawn from what the
  stubs and the instructor solutions of every kernel exercise reference (nm, all three
  builds); the self-test checks that they all still pass it.
* syscall_instruction_problems (kernel exercises): no system call instruction in the code.
* include_problems (every exercise's files, before the build): no #include of an absolute
  path or one through "..", which a failed build would quote.
* kernel_source_problems (the student's files, before the build): the preprocessor only
  includes headers and defines macros that neither paste (##) nor stringize (#) tokens; no
  conditional compilation but an include guard, no #undef, #line or pragma but unroll and
  once; no name of a macro that tells the builds apart (TUTORIAL_CPU_BACKEND, __CUDACC__,
  __CUDA_ARCH__, __clang__, __has_include, ...) and no inline assembly in the text: the file
  must be the same program for every build, or the CPU backend grades another kernel than the
  GPU runs. pasting_macro_problems adds, after the build, any macro of a header that pastes
  or stringizes tokens (the CPU build's -dM list).
* preprocessed_problems (each build's preprocessed text, the student's lines): no asm, no
  syscall and no build-telling macro name, however the file spelled it (token pasting through
  a macro of a header, say).
* model_ir_problems (the memory model's LLVM IR, after the hooks were inserted): every load and
  store of every function a __global__ function reaches has its hook, or the runner is
  refused: no memcpy-like intrinsic, library copy (wmemcpy, mempcpy, bcopy, std::copy's
  memmove ...), access of a width the hooks lack (long double, _BitInt(96), a struct copied
  whole), atomic, inline assembly or call through a pointer there.

Every refusal names the student's own line where it can (the line that names the symbol or
the word), once per build; what the library code it called needs besides is counted, not
listed.
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


def disallowed_undefined(obj):
    """The demangled names of what the object uses that a kernel exercise may not."""
    return [name for name in undefined_symbols(obj) if not _ALLOWED.fullmatch(name)]


def undefined_symbol_problems(obj, files=None):
    """What the object calls or uses that a kernel exercise may not (empty: nothing), each
    named at the student's line that names it where one does (`files`: {path: bytes})."""
    try:
        names = disallowed_undefined(obj)
    except OSError as e:
        return [str(e)]
    return located(names, files or {}, "uses")


# ---------------------------------------------------------------------------------------------
# What a student's object defines
# ---------------------------------------------------------------------------------------------

# Definitions the compilers make themselves in every translation unit (clang's personality
# reference and its terminate handler), not the student's.
COMPILER_DEFINED = {"DW.ref.__gxx_personality_v0", "__clang_call_terminate"}
# The exercise's entry points: what the runner calls in the student's translation unit.
ENTRY_POINTS = {"_ZN8exercise7entriesEv"}
# Namespaces of the standard library, the C++ ABI, Boost and the kit: a strong definition of a
# name in one of them can only replace the library's (explicit specializations and extern "C"
# functions named by a mangled name alike).
RESERVED_SCOPES = {"std", "__gnu_cxx", "__cxxabiv1", "__gnu_debug", "__pstl", "__detail",
                   "tutorial", "exercise", "boost", "__sanitizer", "operator new/delete"}
_STRONG = set("TDBRGSC")  # nm: text, data, bss, read-only, small data, common
_SPECIAL = re.compile(r"^(?:T[VTIS]|TH|TW|GV|GR|Th(?:n?\d+_)|Tv(?:n?\d+_){2}|"
                      r"Tc(?:[hv](?:n?\d+_)+){2})")


def mangled_scope(name):
    """The outermost scope of a mangled C++ name (Itanium ABI): "std" for std:: and its
    abbreviations, the first namespace or class name, "operator new/delete" for the global
    allocation functions; None for a name at global scope or one that does not parse."""
    if not name.startswith("_Z"):
        return None
    s = name[2:]
    for _ in range(16):
        m = _SPECIAL.match(s)
        if m:
            s = s[m.end():]
        elif s[:1] in ("L", "Z"):   # internal linkage; a local entity (its function follows)
            s = s[1:]
        else:
            break
    if s.startswith("N"):
        s = re.sub(r"^N[rVK]*[RO]?", "", s)
        if re.match(r"^S[t]", s) or re.match(r"^S[absiod]", s):
            return "std"
        m = re.match(r"^(\d+)", s)
        if m:
            length = int(m.group(1))
            return s[len(m.group(1)):len(m.group(1)) + length]
        return None
    if re.match(r"^S[tabsiod]", s):
        return "std"
    if re.match(r"^(nw|na|dl|da)", s):
        return "operator new/delete"
    m = re.match(r"^(\d+)", s)
    if m:  # an unscoped name: its own name (a function or variable at global scope)
        length = int(m.group(1))
        return "::" + s[len(m.group(1)):len(m.group(1)) + length]
    return None


def defined_symbols(obj):
    """[(name, nm type letter)] of the object's global definitions (weak and unique ones
    included; the version of a versioned name dropped)."""
    out = []
    for parts in _nm(obj, "--defined-only", "-g"):
        if len(parts) >= 2:
            out.append((parts[0].split("@")[0], parts[1]))
    return out


def archive_definitions(paths):
    """{name: strong?} of the global definitions in the runner libraries (trusted)."""
    out = {}
    for path in paths:
        for parts in _nm(path, "--defined-only", "-g"):
            if len(parts) >= 2 and not parts[0].endswith(":"):
                name = parts[0].split("@")[0]
                out[name] = out.get(name, False) or parts[1] in _STRONG
    return out


_LIBRARY_EXPORTS = {}   # path -> frozenset of names (a grading run reads each library once)
_LDCONFIG = None


def _library_paths():
    """{soname: path} of the system's shared libraries (ldconfig's cache; nothing is run
    from a student's binary)."""
    global _LDCONFIG
    if _LDCONFIG is None:
        _LDCONFIG = {}
        for ldconfig in ("/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"):
            try:
                out = subprocess.run([ldconfig, "-p"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, timeout=60).stdout.decode(
                                         "utf-8", "replace")
            except (OSError, subprocess.SubprocessError):
                continue
            for line in out.splitlines():
                m = re.match(r"^\s*(\S+)\s+\((.*)\)\s+=>\s+(\S+)$", line)
                if m and ("x86-64" in m.group(2) or "64bit" in m.group(2) or
                          "x86-64" not in out):
                    _LDCONFIG.setdefault(m.group(1), m.group(3))
            break
    return _LDCONFIG


def _needed(path):
    """The NEEDED entries of an ELF file (readelf: nothing of it is run)."""
    try:
        out = subprocess.run(["readelf", "-d", "-W", path], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=60).stdout.decode("utf-8",
                                                                                   "replace")
    except (OSError, subprocess.SubprocessError):
        return []
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def shared_library_exports(binary):
    """Every name that the shared libraries `binary` loads (NEEDED, transitively) export."""
    names, seen, todo = set(), set(), list(_needed(binary))
    paths = _library_paths()
    while todo:
        soname = todo.pop()
        path = paths.get(soname) or next((os.path.join(d, soname) for d in (
            "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
            "/lib", "/usr/lib") if os.path.exists(os.path.join(d, soname))), None)
        if path is None or path in seen:
            continue
        seen.add(path)
        if path not in _LIBRARY_EXPORTS:
            try:
                _LIBRARY_EXPORTS[path] = frozenset(parts[0].split("@")[0] for parts in
                                                   _nm(path, "-D", "--defined-only")
                                                   if len(parts) >= 2)
            except OSError:
                _LIBRARY_EXPORTS[path] = frozenset()
        names |= _LIBRARY_EXPORTS[path]
        todo.extend(_needed(path))
    return names


def defined_symbol_problems(objects, kit_definitions, library_exports):
    """[(name, why)] of the global definitions of the student's objects that a library of the
    runner also has, or could have: the runner's code would call the student's instead."""
    problems = {}
    for obj in objects:
        for name, kind in defined_symbols(obj):
            if name in COMPILER_DEFINED or name in ENTRY_POINTS or name in problems:
                continue
            scope = mangled_scope(name)
            strong = kind in _STRONG
            why = None
            if kind == "i":
                why = "an indirect function (its resolver runs before the runner does)"
            elif scope == "operator new/delete":
                why = "the global operator new or delete (they serve the whole runner)"
            elif name in library_exports and (strong or scope not in STANDARD_SCOPES):
                why = "names the C or C++ library (or another the runner loads) defines"
            elif name in kit_definitions and strong:
                why = "names the runner's own library defines"
            elif not name.startswith("_Z") and kind in "TtWw":
                why = "functions with C linkage (extern \"C\"), which a library may define"
            elif not name.startswith("_Z") and name.startswith("__"):
                why = "a reserved name with C linkage (two underscores): the linker and the " \
                      "libraries give such names meaning (__start_ and __stop_ of a section)"
            elif scope in RESERVED_SCOPES and strong:
                why = f"definitions in the namespace {scope}:: (the standard library's, the " \
                      f"kit's or the runtime's)"
            if why:
                problems[name] = why
    return sorted(problems.items())


# The namespaces of the standard library and the C++ ABI: a weak definition there is an
# inline function or template instance of the standard headers (std::ctype<char>::do_narrow,
# a std::stringbuf destructor), which the C++ library may export too.
STANDARD_SCOPES = {"std", "__gnu_cxx", "__cxxabiv1", "__gnu_debug", "__pstl", "__detail"}


def private_copies(objects, kit_definitions, library_exports):
    """{object: [names]} of the weak definitions in the standard library's namespaces that a
    shared library the runner loads also exports and the runner library does not define
    (where it does, its copy is the one linked first and kept): left global, the student's
    copy would be what the library itself calls. The grader makes them local to the student's
    object (localize) and links the runner again."""
    out = {}
    for obj in objects:
        names = [name for name, kind in defined_symbols(obj)
                 if kind not in _STRONG and kind != "i" and name in library_exports and
                 name not in kit_definitions and mangled_scope(name) in STANDARD_SCOPES]
        if names:
            out[obj] = sorted(set(names))
    return out


def localize(obj, names):
    """Makes `names` local to the object (objcopy): only its own code reaches them."""
    listing = obj + ".localize"
    with open(listing, "w") as f:
        f.write("".join(n + "\n" for n in names))
    try:
        proc = subprocess.run(["objcopy", f"--localize-symbols={listing}", obj],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, timeout=120)
    finally:
        os.unlink(listing)
    if proc.returncode != 0:
        raise OSError("objcopy failed: " + proc.stdout.decode("utf-8", "replace")[:300])


def syscall_instruction_problems(objects):
    """Object files whose code holds a system call instruction (whatever source spelled it)."""
    found = []
    for obj in objects:
        try:
            proc = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  stdin=subprocess.DEVNULL, timeout=300)
        except (OSError, subprocess.SubprocessError) as e:
            found.append(f"cannot disassemble the object (objdump): {e}")
            continue
        text = proc.stdout.decode("utf-8", "replace")
        function = ""
        for line in text.splitlines():
            m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
            if m:
                function = m.group(1)
                continue
            if re.search(r"\t(syscall|sysenter|int\s+\$0x80)\b", line):
                found.append(f"a system call instruction in {demangle([function])[0]}")
                break
    return found


# ---------------------------------------------------------------------------------------------
# Naming the student's own line
# ---------------------------------------------------------------------------------------------

def logical_text(text):
    """(the text with comments blanked and backslash-newlines joined, the original line number
    of each of its characters): what the compiler reads, and where each piece came from."""
    out, lines, line, i, n = [], [], 1, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and text.startswith("\n", i + 1):
            i, line = i + 2, line + 1
            continue
        if c == "\\" and text.startswith("\r\n", i + 1):
            i, line = i + 3, line + 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            piece = text[i:j + 1]
            out.append(piece)
            lines.extend([line] * len(piece))
            line += piece.count("\n")
            i = j + 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                if text[i] == "\\" and text.startswith("\n", i + 1):
                    line += 1
                    i += 1
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            out.append(" ")
            lines.append(line)
            i = end
        else:
            out.append(c)
            lines.append(line)
            if c == "\n":
                line += 1
            i += 1
    return "".join(out), lines


_NOISE = {"std", "operator", "const", "char", "int", "long", "unsigned", "void", "float",
          "double", "bool", "short", "__cxx11", "allocator", "char_traits", "basic_string",
          "string", "vector", "tutorial", "exercise", "cuda", "CUstream_st", "size_t", "abi"}
_ALIASES = {"basic_ifstream": "ifstream", "basic_ofstream": "ofstream",
            "basic_fstream": "fstream", "basic_filebuf": "filebuf",
            "basic_istringstream": "istringstream", "basic_istream": "istream"}


def _candidates(name):
    """Patterns of what a student's source would spell for a (demangled or mangled) name:
    the function's own name and its class's, most specific first; an operator as written."""
    word = lambda w: rf"(?<![A-Za-z0-9_]){re.escape(w)}(?![A-Za-z0-9_])"  # noqa: E731
    if not name.startswith("_Z") and re.fullmatch(r"[A-Za-z_]\w*", name):
        return [word(name)]
    plain = name
    for _ in range(4):
        plain = re.sub(r"<[^<>]*>", "", plain)
    plain = re.sub(r"\(.*$", "", plain)
    plain = re.sub(r"^(typeinfo name for|typeinfo for|vtable for|VTT for|guard variable for|"
                   r"construction vtable for)\s+", "", plain)
    out = []
    m = re.search(r"operator\s*(new|delete)(\[\])?", plain)
    if m:
        out.append(rf"operator\s*{m.group(1)}")
    parts = [p for p in re.findall(r"[A-Za-z_]\w*", plain.split(" ")[-1]) if p not in _NOISE]
    for p in reversed(parts):
        out.append(word(p))
        if p in _ALIASES:
            out.append(word(_ALIASES[p]))
    return out + ([word(name)] if name.startswith("_Z") else [])


def located(names, files, verb=""):
    """One line per student line that names one of `names` ("k.cuh:12: cudaMemcpy:
    cudaMemcpy(h, d, ...)"), then one for the names no student line spells (what the library
    code it called needs): counted, the shortest named."""
    texts = {}
    for path, data in sorted(files.items()):
        raw = data.decode("utf-8", "replace")
        text, lines = logical_text(raw)
        texts[path] = (text, lines, raw.splitlines())
    by_line, unplaced = {}, []
    for name in names:
        shown = demangle([name])[0] if name.startswith("_Z") else name
        where = None
        for candidate in _candidates(shown) + (_candidates(name) if name != shown else []):
            pattern = re.compile(candidate)
            for path, (text, lines, raw) in texts.items():
                m = pattern.search(text)
                if m:
                    line = lines[m.start()]
                    where = (os.path.basename(path), line,
                             raw[line - 1].strip() if line <= len(raw) else "")
                    break
            if where:
                break
        short = re.sub(r"\(.*$", "", shown) if len(shown) > 60 else shown
        if where:
            by_line.setdefault(where, []).append(short)
        else:
            unplaced.append(short)
    out = []
    for (path, line, code), shown in sorted(by_line.items()):
        names_text = ", ".join(sorted(set(shown))[:3]) + \
            (f" and {len(set(shown)) - 3} more" if len(set(shown)) > 3 else "")
        out.append(f"{path}:{line}: {names_text}: {code[:60]}" + ("..." if len(code) > 60 else ""))
    if unplaced:
        first = sorted(unplaced, key=lambda n: (n.startswith("_"), len(n)))[0]
        out.append(f"{'and ' if out else ''}{len(unplaced)} name(s) the library code it calls "
                   f"{verb or 'needs'} (first: {first[:80]})")
    return out


# ---------------------------------------------------------------------------------------------
# The source: no test of what tells the builds apart
# ---------------------------------------------------------------------------------------------

# Macros (and preprocessor operators) whose value differs between nvcc, the CPU backend's g++
# and the memory model's clang, or between two compiles of the same file: a file that names
# one can be another program in each build. (Predefined names the compilers spell alike but
# define apart, such as the feature-test macros, are in the list by their families.)
BACKEND_MACROS = re.compile(
    r"(?<![A-Za-z0-9_])(TUTORIAL_\w+|__CUDACC\w*|__CUDA_ARCH\w*|__CUDA\w*__|__NVCC__|"
    r"__NVCOMPILER\w*|__NVPTX\w*|CUDART_VERSION|CUDA_VERSION|__CUDA_RUNTIME_H__|__clang\w*|"
    r"__GNUC\w*|__GNUG__|__GXX\w*|__llvm__|__INTEL_\w+|__VERSION__|__has_include\w*|"
    r"__has_feature|__has_extension|__has_builtin|__has_attribute|__has_cpp_attribute|"
    r"__has_declspec_attribute|__is_identifier|__SANITIZE_\w+|__OPTIMIZE\w*|__FAST_MATH__|"
    r"__cpp_\w+|_GLIBCXX\w*|__FILE__|__BASE_FILE__|__FILE_NAME__|__LINE__|__COUNTER__|"
    r"__INCLUDE_LEVEL__|__DATE__|__TIME__|__TIMESTAMP__)"
    r"(?![A-Za-z0-9_])")


# Inline assembly: a system call in it would do what the symbol check refuses (open device
# memory with mprotect, say), and the CPU backend cannot run PTX anyway. `syscall` names the C
# library's function (a symbol the allow-list refuses anyway) or a macro spelled to reach it.
INLINE_ASSEMBLY = re.compile(r"(?<![A-Za-z0-9_])(asm|__asm|__asm__)(?![A-Za-z0-9_])")
# The ELF sections whose functions run before main or after it, and the attributes that put
# code there: a student's code runs only inside the calls the runner makes. The processor's
# counters (the time-stamp counter's builtins, which no symbol shows) would let host code time
# a kernel whose duration depends on the data: a channel from device memory to the host.
PREPROCESSED_WORDS = re.compile(
    r"(?<![A-Za-z0-9_])(asm|__asm|__asm__|syscall|_*constructor_*|_*destructor_*|init_priority|"
    r"preinit_array|init_array|fini_array|ctors|dtors|_*rdtscp?|_*rdpmc|__builtin_ia32_\w+|"
    r"__builtin_readcyclecounter|__builtin_readsteadycounter)(?![A-Za-z0-9_])")
# The pragmas a kernel file may use (loop unrolling; a header's once): nothing else, since a
# pragma can switch hooks off (clang attribute), push and pop macros, or poison names.
ALLOWED_PRAGMA = re.compile(r"^\s*(once|unroll|nounroll)\b")
_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(\w*)(.*)$")


def _directives(text, lines):
    """[(line number, name, rest)] of the preprocessor directives of a logical text."""
    out, offset = [], 0
    for line in text.split("\n"):
        m = _DIRECTIVE.match(line)
        if m:
            out.append((lines[offset] if offset < len(lines) else 0, m.group(1), m.group(2)))
        offset += len(line) + 1
    return out


def _is_guard(directives):
    """Whether the file's conditional directives are one classic include guard: #ifndef X,
    #define X, ..., #endif as the first, second and last directives."""
    if len(directives) < 3:
        return False
    (_, n1, r1), (_, n2, r2), (_, n3, r3) = directives[0], directives[1], directives[-1]
    guard = r1.strip()
    return (n1 == "ifndef" and re.fullmatch(r"\w+", guard) is not None and n2 == "define" and
            r2.strip() == guard and n3 == "endif" and not r3.strip())


def include_problems(files):
    """{path: bytes} of a submission's files of any exercise -> the #include lines that name an
    absolute path or one through "..". A failed build quotes the file it included, so such a
    path would show the student any file their uid can read; a header of the exercise, the kit
    or the compiler never needs one."""
    problems = []
    for path, data in sorted(files.items()):
        text, lines = logical_text(data.decode("utf-8", "replace"))
        for line, directive, rest in _directives(text, lines):
            m = re.match(r'^\s*(?:"([^"]*)"|<([^>]*)>)', rest) if directive == "include" else None
            target = (m.group(1) if m.group(1) is not None else m.group(2)) if m else ""
            if m and (re.match(r"\s*/", target) or ".." in re.split(r"[/\\]", target)):
                problems.append(f"{os.path.basename(path)}:{line}: #include{rest[:50].rstrip()}: "
                                f"an #include must name a header of the exercise, the kit or "
                                f"the compiler, not an absolute path or one through ..")
    return problems


def kernel_source_problems(files):
    """{path: bytes} of a submission's files of one kernel exercise -> why they cannot be graded
    (empty: they can), one line per place, naming it. Comments are not read."""
    problems = []
    for path, data in sorted(files.items()):
        name = os.path.basename(path)
        raw = data.decode("utf-8", "replace")
        text, lines = logical_text(raw)
        directives = _directives(text, lines)
        guarded = _is_guard(directives)
        for i, (line, directive, rest) in enumerate(directives):
            where = f"{name}:{line}: #{directive}{rest[:50].rstrip()}"
            if directive == "include":
                if not re.match(r'^\s*("[^"]*"|<[^>]*>)\s*$', rest):
                    problems.append(f"{where}: an #include must name its file (\"...\" or <...>)")
            elif directive == "pragma":
                if not ALLOWED_PRAGMA.match(rest):
                    problems.append(f"{where}: only #pragma unroll (and once) are allowed")
            elif directive == "define":
                body = re.sub(r"^\s*\w+(\([^)]*\))?", "", rest)
                if "#" in body or "%:" in body:
                    problems.append(f"{where}: a macro that pastes (##) or stringizes (#) "
                                    f"tokens: it could spell a name the scans look for")
            elif directive in ("ifndef", "endif") and guarded and \
                    i in (0, len(directives) - 1):
                continue
            elif directive == "":
                continue  # the null directive
            else:
                problems.append(f"{where}: conditional compilation and other preprocessor "
                                f"directives (#if, #ifdef, #undef, #line ...) are not allowed "
                                f"in a kernel exercise: every build must compile the same code")
        for m in re.finditer(r"(?<![A-Za-z0-9_])(_Pragma|__pragma)\s*\(\s*(\"(?:[^\"\\]|\\.)*\")?",
                             text):
            literal = (m.group(2) or "")[1:-1]
            if not ALLOWED_PRAGMA.match(literal):
                problems.append(f"{name}:{lines[m.start()]}: {m.group(0)[:60]}: only "
                                f"_Pragma(\"unroll\") is allowed")
        seen = set()
        for m in BACKEND_MACROS.finditer(text):
            line = lines[m.start()]
            if (line, m.group(1)) in seen:
                continue
            seen.add((line, m.group(1)))
            problems.append(f"{name}:{line}: {m.group(1)}: a file may not name what tells the "
                            f"builds apart (nvcc, the CPU backend, the memory model): every "
                            f"build must grade the same kernel")
        for m in INLINE_ASSEMBLY.finditer(text):
            problems.append(f"{name}:{lines[m.start()]}: {m.group(1)}: inline assembly is not "
                            f"allowed in a kernel exercise (the CPU backend cannot run it, and "
                            f"the grader cannot check what it does)")
    return problems


def pasting_macros(macros_path):
    """The macros defined in a -dM listing that paste or stringize tokens, directly or through
    another such macro: with them a file could spell a name (asm, a build-telling macro) that
    its text never holds."""
    bodies = {}
    try:
        with open(macros_path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^#define\s+(\w+)(\([^)]*\))?\s?(.*)$", line.rstrip("\n"))
                if m:
                    bodies[m.group(1)] = m.group(3)
    except OSError:
        return None
    pasting = {name for name, body in bodies.items() if "#" in body}
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            if name not in pasting and any(w in pasting for w in
                                           re.findall(r"[A-Za-z_]\w*", body)):
                pasting.add(name)
                changed = True
    return pasting


def pasting_macro_problems(files, macros_path):
    """Student lines that use a macro of a header that pastes or stringizes tokens:
    ["k.cuh:12: __CONCAT", ...]."""
    pasting = pasting_macros(macros_path)
    if pasting is None:
        return ["no macro list from the CPU build (-dM): the grader cannot check which macros "
                "the file uses"]
    found = {}
    for path, data in sorted(files.items()):
        text, lines = logical_text(data.decode("utf-8", "replace"))
        for m in re.finditer(r"(?<![A-Za-z0-9_])[A-Za-z_]\w*", text):
            if m.group(0) in pasting:
                found.setdefault((os.path.basename(path), lines[m.start()]), set()).add(m.group(0))
    return [f"{path}:{line}: {', '.join(sorted(words))}"
            for (path, line), words in sorted(found.items())]


_LINE_MARKER = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')


def preprocessed_problems(preprocessed, roots):
    """What a build compiled from the student's lines, after the preprocessor: no asm, no
    syscall, no build-telling macro name (in code or a string), however spelled. `roots`: the
    folders whose files are the student's. Returns ["k.cuh:12: asm, syscall", ...]."""
    roots = [os.path.realpath(r).rstrip("/") + "/" for r in roots]
    found = {}
    current, number, mine = "", 0, False
    cache = {}
    try:
        with open(preprocessed, encoding="utf-8", errors="replace") as f:
            for line in f:
                marker = _LINE_MARKER.match(line)
                if marker:
                    number = int(marker.group(1))
                    name = marker.group(2).encode().decode("unicode_escape", "replace")
                    current = name
                    if name not in cache:
                        cache[name] = not name.startswith("<") and any(
                            os.path.realpath(name).startswith(r) for r in roots)
                    mine = cache[name]
                    continue
                if mine and not line.lstrip().startswith("#pragma"):
                    for m in list(PREPROCESSED_WORDS.finditer(line)) + \
                            list(BACKEND_MACROS.finditer(line)):
                        found.setdefault((os.path.basename(current), number), []).append(
                            m.group(1))
                number += 1
    except OSError as e:
        return [f"cannot read what the compiler compiled: {e}"]
    return [f"{path}:{line}: {', '.join(sorted(set(words)))}"
            for (path, line), words in sorted(found.items())]


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
    r"[su](add|sub|shl)\.sat|is\.fpclass|trap|debugtrap|prefetch|"
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
    def __init__(self, name, header, types=None):
        self.name = name
        self.header = header
        self.lines = []     # instructions, in order
        self.defs = {}      # %name -> instruction text (after "=")
        self.entry = set()  # the %names defined in the entry block (its allocas are static)
        self.types = types if types is not None else {}  # %name -> body of the module's types
        self.locals = {}    # memo of _local_of: value -> (alloca, byte offset) or None


_TYPE_DEF = re.compile(r'^(%(?:"(?:[^"\\]|\\.)*"|[-\w.$]+))\s*=\s*type\s+(.*)$')


def parse_ir(text):
    """{name: _Function} of the functions the module defines."""
    functions, current, types = {}, None, {}
    in_entry = False
    for raw in text.splitlines():
        line = _METADATA.sub("", raw).rstrip()
        if current is None:
            m = _TYPE_DEF.match(line)
            if m:
                types[m.group(1)] = m.group(2).strip()
            if line.startswith("define "):
                m = re.search(r'@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(', line)
                if m:
                    current = _Function(m.group(1).strip('"'), line, types)
                    in_entry = True
            continue
        if line == "}":
            functions[current.name] = current
            current = None
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        if re.match(r"^[-\w.$\"]+:", stripped):
            if current.lines:  # a label after the first instruction: the entry block has ended
                in_entry = False
            continue
        stripped = re.sub(r"\s*;.*$", "", stripped) if '"' not in stripped else stripped
        current.lines.append(stripped)
        m = re.match(r'^%("(?:[^"\\]|\\.)*"|[-\w.$]+)\s*=\s*(.*)$', stripped)
        if m:
            current.defs["%" + m.group(1)] = m.group(2)
            if in_entry:
                current.entry.add("%" + m.group(1))
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


_SCALAR_BYTES = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "x86_fp80": 16, "fp128": 16,
                 "ppc_fp128": 16, "ptr": 8}
_LOCAL_BYTES = 1 << 16  # the largest local the memory model reads past its hooks
_FRAME_BYTES = 1 << 20  # a function's locals in all: the fiber stacks are far smaller, and a
#                         frame past 2^31 bytes is moved by 32-bit arithmetic (clang's probes)


def _type_layout(f, text, depth=0):
    """(bytes, alignment) of an LLVM type as x86-64 lays it out, or None when this cannot tell
    (an opaque or unknown type). Approximate where it need not be exact: it bounds offsets."""
    t = text.strip()
    if depth > 32:
        return None
    if t in _SCALAR_BYTES:
        n = _SCALAR_BYTES[t]
        return n, n
    if re.fullmatch(r"ptr\s+addrspace\(\d+\)", t) or t.endswith("*"):
        return 8, 8  # an opaque pointer, or a typed one (clang before 15: float*, void (i32)*)
    m = re.fullmatch(r"i(\d+)", t)
    if m:
        store = (int(m.group(1)) + 7) // 8
        align = 1
        while align < store and align < 16:
            align *= 2
        return -(-store // align) * align, align
    m = re.fullmatch(r"\[\s*(\d+)\s+x\s+(.*)\]", t, re.S)
    if m:
        inner = _type_layout(f, m.group(2), depth + 1)
        return None if inner is None else (int(m.group(1)) * inner[0], inner[1])
    m = re.fullmatch(r"<\s*(\d+)\s+x\s+(.*)>", t, re.S)
    if m:
        inner = _type_layout(f, m.group(2), depth + 1)
        if inner is None:
            return None
        size = 1
        while size < int(m.group(1)) * inner[0]:
            size *= 2
        return size, size
    packed = t.startswith("<{")
    if packed or t.startswith("{"):
        body = t[2:-2] if packed else t[1:-1]
        offset, align = 0, 1
        for field in (_split_top(body) if body.strip() else []):
            layout = _type_layout(f, field, depth + 1)
            if layout is None:
                return None
            if not packed:
                offset = -(-offset // layout[1]) * layout[1]
                align = max(align, layout[1])
            offset += layout[0]
        return -(-offset // align) * align, align
    if t.startswith("%") and t in f.types:
        return _type_layout(f, f.types[t], depth + 1)
    return None


def _field_offset(f, struct_text, index):
    """(byte offset, type) of field `index` of a struct type, or None."""
    t = struct_text.strip()
    for _ in range(32):
        if t.startswith("%") and t in f.types:
            t = f.types[t].strip()
        else:
            break
    packed = t.startswith("<{")
    if not (packed or t.startswith("{")):
        return None
    fields = _split_top(t[2:-2] if packed else t[1:-1])
    if not 0 <= index < len(fields):
        return None
    offset = 0
    for k, field in enumerate(fields):
        layout = _type_layout(f, field)
        if layout is None:
            return None
        if not packed:
            offset = -(-offset // layout[1]) * layout[1]
        if k == index:
            return offset, field
        offset += layout[0]
    return None


def _gep_offset(f, operands):
    """The constant byte offset a getelementptr adds to its base, or None (a run-time index, a
    type this cannot lay out)."""
    indices = []
    for o in operands[2:]:
        v = _value(o)
        if not re.fullmatch(r"-?\d+", v):
            return None
        indices.append(int(v))
    if not indices:
        return 0
    current = operands[0]
    layout = _type_layout(f, current)
    if layout is None:
        return None
    offset = indices[0] * layout[0]
    for index in indices[1:]:
        t = current.strip()
        m = re.fullmatch(r"[\[<]\s*(\d+)\s+x\s+(.*)[\]>]", t, re.S)
        if m:
            current = m.group(2)
            layout = _type_layout(f, current)
            if layout is None:
                return None
            offset += index * layout[0]
            continue
        field = _field_offset(f, t, index)
        if field is None:
            return None
        offset += field[0]
        current = field[1]
    return offset


def _alloca_bytes(f, d):
    """The bytes of an `alloca` with a constant count (the text after "alloca"), or None."""
    body = re.sub(r"^alloca\s+(inalloca\s+)?", "", d)
    parts = _split_top(body)
    count = 1
    for extra in parts[1:]:
        if extra.startswith(("align", "addrspace")):
            continue
        m = re.fullmatch(r"i\d+\s+(\d+)", extra.strip())
        if not m:
            return None  # a count computed at run time (a dynamic alloca), or a negative one
        count = int(m.group(1))
    layout = _type_layout(f, parts[0]) if parts else None
    return None if layout is None else layout[0] * count


def _moved_bytes(f, typed_value):
    """The bytes a `<type> <value>` operand moves (a store's value, an atomic's operand), or
    None. The value may be a constant expression of several tokens, so the type is the shortest
    run of leading tokens that lays out."""
    tokens = [t for t in _split_top(typed_value.strip(), " ") if t]
    for n in range(1, len(tokens)):
        layout = _type_layout(f, " ".join(tokens[:n]))
        if layout is not None:
            return layout[0]
    return None


def _phi_values(d):
    """The incoming values of a phi (`phi <ty> [ v, %bb ], ...`; a value may be a constant
    expression holding brackets and commas of its own)."""
    body = re.sub(r"^phi\s+((fast|nnan|ninf|nsz|arcp|contract|afn|reassoc)\s+)*", "", d)
    values = []
    for part in _split_top(body):
        tokens = [t for t in _split_top(part.strip(), " ") if t]
        if tokens and tokens[-1].startswith("[") and tokens[-1].endswith("]"):
            values.append(_split_top(tokens[-1][1:-1])[0].strip())
    return values


def _local_of(f, value):
    """(alloca, byte offset) when a pointer value is a static alloca of this function (one in
    its entry block, of a constant size: allocated once, inside the frame) at one constant
    offset; else None. A getelementptr with an index computed at run time, a dynamic alloca
    (its address is the stack pointer minus whatever size the code asked for), a loop (a phi
    that comes back to itself) or a phi or select whose arms differ (bits of data choosing
    among offsets) can each be the distance from the local to any address. Memoized per
    value, so that nested selects and phis cost one visit each."""
    value = _strip_casts(f, value)
    if value in f.locals:
        return f.locals[value]
    f.locals[value] = None  # while it is being worked out: a cycle reads None
    d = f.defs.get(value)
    result = None
    op = d.split(None, 1)[0] if d else ""
    if op == "alloca":
        size = _alloca_bytes(f, d)
        if value in f.entry and size is not None and 0 < size <= _LOCAL_BYTES:
            result = (value, 0)
    elif op == "getelementptr":
        operands = _split_top(re.sub(r"^getelementptr\s+(inbounds\s+|nuw\s+|nusw\s+|"
                                     r"inrange\(\S+\)\s+)*", "", d))
        base = _local_of(f, _value(operands[1])) if len(operands) >= 2 else None
        offset = _gep_offset(f, operands) if base else None
        if base and offset is not None:
            result = (base[0], base[1] + offset)
    elif op in ("bitcast", "addrspacecast"):
        result = _local_of(f, _value(re.sub(r"\s+to\s+.*$", "", d.split(None, 1)[1])))
    elif op in ("phi", "select"):
        arms = _phi_values(d) if op == "phi" else \
            [_value(o) for o in _split_top(d[len("select"):])[1:]]
        found = {_local_of(f, v) for v in arms}
        if len(found) == 1 and None not in found and (op == "phi" or len(arms) == 2):
            result = found.pop()
    f.locals[value] = result
    return result


def _is_local(f, value, width=1):
    """Whether `width` bytes at a pointer value lie inside a static alloca of this function, at
    one constant offset: the kernel's own stack, which is not GPU memory. The stack pointer
    moves only by fixed frames (model_ir_problems refuses an alloca of a run-time size, or one
    made past a function's start), and the memory model's build probes every page of a large
    frame (-fstack-clash-protection), so a frame cannot reach past the guard page below its
    fiber's stack. A width of None (bytes not known) cannot be shown to fit: not local."""
    local = _local_of(f, value)
    if local is None or width is None:
        return False
    size = _alloca_bytes(f, f.defs[local[0]])
    return size is not None and 0 <= local[1] and local[1] + max(width, 1) <= size


def _rooted_in_local(f, value, seen=None):
    """Whether a pointer value comes from an alloca of this function through any chain of
    getelementptrs, casts, phis and selects (for a refusal's message: why it is not local)."""
    seen = set() if seen is None else seen
    todo = [value]
    while todo:
        v = _strip_casts(f, todo.pop())
        if v in seen:
            continue
        seen.add(v)
        d = f.defs.get(v)
        op = d.split(None, 1)[0] if d else ""
        if op == "alloca":
            return True
        if op == "getelementptr":
            operands = _split_top(re.sub(r"^getelementptr\s+(inbounds\s+|nuw\s+|nusw\s+)*",
                                         "", d))
            if len(operands) >= 2:
                todo.append(_value(operands[1]))
        elif op in ("bitcast", "addrspacecast"):
            todo.append(_value(re.sub(r"\s+to\s+.*$", "", d.split(None, 1)[1])))
        elif op == "phi":
            todo.extend(_phi_values(d))
        elif op == "select":
            todo.extend(_value(o) for o in _split_top(d[len("select"):])[1:])
    return False


def _unseen_local(f, pointer):
    """The end of a refusal's message where the pointer is a local at a run-time offset."""
    if _rooted_in_local(f, pointer):
        return (" (here a local at an offset computed at run time, chosen by a select or phi, "
                "or stepped around a loop, or a local whose size is set at run time or larger "
                "than 64 KB: the memory model allows such accesses only to a fixed-size local at "
                "one constant offset inside it)")
    return ""


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
        previous, frame = "", 0
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
                if op == "load":
                    layout = _type_layout(f, operands[0]) if operands else None
                    width = layout[0] if layout else None
                else:
                    width = _moved_bytes(f, operands[0]) if operands else None
                if not hooked and not _is_local(f, pointer, width):
                    problems.append(f"{where(f)}: a {kind} the memory model's hooks do not see "
                                    f"({body[:90]}): a width they lack (long double, _BitInt, a "
                                    f"struct or array copied whole) or hooks switched off"
                                    f"{_unseen_local(f, pointer)}")
            elif op in ("atomicrmw", "cmpxchg"):
                operands = _split_top(re.sub(r"^(atomicrmw|cmpxchg)\s+(weak\s+)?(volatile\s+)?"
                                             r"(\w+\s+)?", "", body))
                width = _moved_bytes(f, operands[1]) if len(operands) > 1 else None
                if not operands or not _is_local(f, _value(operands[0]), width):
                    problems.append(f"{where(f)}: an atomic access the hooks do not see")
            elif op == "alloca":
                name = re.match(r'^(%("(?:[^"\\]|\\.)*"|[-\w.$]+))\s*=', inst)
                size = _alloca_bytes(f, body)
                frame += size or 0
                if not (name and name.group(1) in f.entry and size is not None) or \
                        size > _FRAME_BYTES or frame > _FRAME_BYTES:
                    problems.append(f"{where(f)}: a local whose size is set at run time, made "
                                    f"after the function's start, or larger than "
                                    f"{_FRAME_BYTES >> 20} MB in all (__builtin_alloca, a "
                                    f"variable-length array, a huge array): it moves the stack "
                                    f"pointer by any amount, onto any memory")
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
                    # the length must be a constant that fits the local: a run-time one, or one
                    # larger than the local, writes past it, into the frame
                    length = _value(operands[2]) if len(operands) > 2 else ""
                    width = int(length) if re.fullmatch(r"\d+", length) else None
                    unseen = [p for p in pointers if not _is_local(f, _value(p), width)]
                    if unseen:
                        problems.append(f"{where(f)}: a {callee.split('.')[1]} of memory (a "
                                        f"struct or array copied whole, std::copy ...): the "
                                        f"memory model's hooks do not see it"
                                        f"{_unseen_local(f, _value(unseen[0]))}")
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
                    byval = re.search(r"\bbyval\((.*?)\)\s*(align\s+\d+\s+)?[%@]", arg)
                    width = None
                    if byval:
                        layout = _type_layout(f, byval.group(1))
                        width = layout[0] if layout else None
                    elif re.search(r"\bbyval\b", arg):  # typed pointers: byval with no type
                        layout = _type_layout(f, _split_top(arg.strip(), " ")[0][:-1])
                        width = layout[0] if layout else None
                    if re.search(r"\bbyval\b", arg) and not _is_local(f, _value(arg), width):
                        problems.append(f"{where(f)}: passes memory by value (byval), a copy "
                                        f"the hooks do not see{_unseen_local(f, _value(arg))}")
            previous = body
    return sorted(set(problems))


def model_ir_file_problems(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return model_ir_problems(f.read())
    except OSError as e:
        return [f"cannot read the memory model's IR: {e}"]
