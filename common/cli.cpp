#include "common/cli.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <sstream>

namespace tutorial {

namespace {

long long parse_integer(const std::string& flag, const char* text, long long lo, long long hi) {
  if (text == nullptr) throw CliError(flag + " expects a value");
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE)
    throw CliError(flag + " expects an integer, got '" + text + "'");
  if (v < lo || v > hi) {
    std::ostringstream msg;
    msg << flag << " must be between " << lo << " and " << hi << ", got " << v;
    throw CliError(msg.str());
  }
  return v;
}

}  // namespace

CliOptions parse_cli(int argc, const char* const* argv, const CliOptions& defaults) {
  CliOptions o = defaults;
  // A GEMM side beyond 2^20 makes a matrix no GPU holds (2^20 x 2^20 floats: 4 TB). A
  // transpose may be thin (4 x 5,000,000): each side may reach INT_MAX, the product is
  // checked below.
  const bool transpose = o.problem == Problem::Transpose;
  const long long kMaxDim = transpose ? INT_MAX : 1 << 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--size") {
      o.m = o.n = o.k = int(parse_integer(arg, value(), 1, kMaxDim));
    } else if (arg == "--m" || arg == "--rows") {
      o.m = int(parse_integer(arg, value(), 1, kMaxDim));
    } else if (arg == "--n" || arg == "--cols") {
      o.n = int(parse_integer(arg, value(), 1, kMaxDim));
    } else if (arg == "--k") {
      if (o.problem == Problem::Transpose)
        throw CliError("--k: a transpose has no K (its sizes are --rows and --cols)");
      o.k = int(parse_integer(arg, value(), 1, kMaxDim));
    } else if (arg == "--iters") {
      o.iters = int(parse_integer(arg, value(), 1, 100000));
    } else if (arg == "--seed") {
      o.seed = uint64_t(parse_integer(arg, value(), 0, LLONG_MAX));
    } else if (arg == "--no-check") {
      o.check = false;
    } else if (arg == "--carveout") {
      o.carveout = int(parse_integer(arg, value(), 0, 100));
    } else if (arg == "--kernel") {
      const char* prefix = value();
      if (prefix == nullptr || *prefix == '\0')
        throw CliError("--kernel expects the start of a kernel's name");
      o.kernels.push_back(prefix);
    } else if (arg == "--choose") {
      const char* how = value();
      o.choose = how ? how : "";
      if (o.choose != "estimate" && o.choose != "measure")
        throw CliError("--choose expects estimate or measure, got '" + o.choose + "'");
    } else if (arg == "--print-choices") {
      o.print_choices = true;
    } else if (arg == "--csv" || arg == "--json") {
      const OutputFormat format = arg == "--csv" ? OutputFormat::Csv : OutputFormat::Json;
      if (o.format != OutputFormat::Table && o.format != format)
        throw CliError("--csv and --json: choose one output format");
      o.format = format;
    } else {
      throw CliError("unknown option '" + arg + "'");
    }
  }
  // Every matrix the kernels index must fit in an int: refused here, before a GPU is looked
  // for, so that a size no GPU could run gets the same answer (exit 2) with or without one.
  auto check_elements = [](const char* what, int a, int b) {
    if (static_cast<long long>(a) * b <= INT_MAX) return;
    std::ostringstream msg;
    msg << what << " must be at most " << INT_MAX << " elements (the kernels index with int), "
        << "got " << a << " x " << b;
    throw CliError(msg.str());
  };
  if (transpose) {
    check_elements("--rows x --cols", o.m, o.n);
  } else {
    check_elements("A (--m x --k)", o.m, o.k);
    check_elements("B (--k x --n)", o.k, o.n);
    check_elements("C (--m x --n)", o.m, o.n);
  }
  return o;
}

std::string to_string(Problem problem) {
  return problem == Problem::Transpose ? "transpose" : "gemm";
}

std::string usage(const std::string& program, const CliOptions& d) {
  std::ostringstream u;
  u << "usage: " << program << " [options]\n";
  if (d.problem == Problem::Transpose)
    u << "  --size N        rows = cols = N (default " << d.m << "x" << d.n << ")\n"
      << "  --rows R --cols C   one size at a time (--m/--n: same); rows x cols at most\n"
      << "                  " << INT_MAX << " elements (N <= 46340)\n";
  else
    u << "  --size N        all of M, N, K (default " << d.m << "x" << d.n << "x" << d.k << ")\n"
      << "  --m M --n N --k K   one size at a time (--rows/--cols: same as --m/--n); each\n"
      << "                  matrix at most " << INT_MAX << " elements (N <= 46340)\n";
  u << "  --kernel PREFIX only the kernels whose names start with PREFIX (repeatable; the\n"
    << "                  ceiling always runs)\n"
    << "  --iters R       timed repetitions, median reported (default " << d.iters << "; more,\n"
    << "                  up to 201, where they take under 0.1 s together)\n"
    << "  --seed S        seed of the random inputs (default " << d.seed << ")\n"
    << "  --no-check      skip the correctness check against the reference\n"
    << "  --carveout P    prefer P% of each SM's L1/shared memory as shared memory (0-100;\n"
    << "                  default: the driver's choice)\n"
    << "  --choose HOW    how the final launchers choose a kernel for a shape: estimate (the\n"
    << "                  model alone, the same in every run) or measure (time the closest\n"
    << "                  candidates once; the default on a GPU); TUTORIAL_CHOOSE does the same\n"
    << "  --print-choices print each choice and the times behind it (TUTORIAL_CHOOSE_PRINT=1)\n"
    << "  --csv | --json  machine-readable output\n"
    << "  --help          this text\n";
  return u.str();
}

}  // namespace tutorial
